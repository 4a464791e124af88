/*
 * Whether the client trusts the server's long-term key (client_internal.h):
 * the key the game pinned, else the one a known-hosts file remembers for
 * this "host:port", else trust on first use, remembered in that file. The
 * key exchange itself (protocol/SPEC.md section 8) already proved that the
 * server holds the key it presents; this decides whether that key is the
 * right server's.
 *
 * The file: one "host:port hex-key" per line, '#' starts a comment; lines
 * in another form are left alone. A line is added, never rewritten: when an
 * operator really changed the server's key, the player removes the line.
 */
#include "client_internal.h"
#include "racesim/base/err.h"
#include "racesim/base/text.h"

#include <stdio.h>
#include <string.h>

#define LINE_MAX_LEN 512u

rs_client_status rs_client__trust_init(rs_client_trust *t, const rs_client_config *cfg,
                                       const char *host, uint16_t port, char *err,
                                       size_t err_len)
{
    memset(t, 0, sizeof *t);
    if (cfg->server_key && cfg->server_key[0]) {
        if (!rs_secure_key_from_hex(cfg->server_key, t->pin)) {
            rs_errf(err, err_len, "server_key: must be 64 hex digits (raceserver "
                                  "--print-public-key prints it)");
            return RS_CLIENT_ERR_ARG;
        }
        t->pinned = true;
    }
    if (cfg->known_hosts && cfg->known_hosts[0]) {
        if (strlen(cfg->known_hosts) >= sizeof t->known_hosts) {
            rs_errf(err, err_len, "known_hosts: path longer than %zu bytes",
                    sizeof t->known_hosts - 1);
            return RS_CLIENT_ERR_ARG;
        }
        rs_str_copy(t->known_hosts, sizeof t->known_hosts, cfg->known_hosts);
    }
    snprintf(t->endpoint, sizeof t->endpoint, "%s:%u", host, (unsigned)port);
    return RS_CLIENT_OK;
}

/* The key remembered for the endpoint: true and *key filled if found. */
static bool remembered(const rs_client_trust *t, uint8_t key[RS_SECURE_KEY_LEN])
{
    FILE *f = fopen(t->known_hosts, "r");
    if (!f)
        return false;
    char line[LINE_MAX_LEN];
    bool found = false;
    size_t elen = strlen(t->endpoint);
    while (!found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, t->endpoint, elen) == 0 && line[elen] == ' ')
            found = rs_secure_key_from_hex(line + elen + 1, key);
    }
    fclose(f);
    return found;
}

static bool remember(const rs_client_trust *t, const uint8_t key[RS_SECURE_KEY_LEN])
{
    FILE *f = fopen(t->known_hosts, "a");
    if (!f)
        return false;
    char hex[65];
    rs_secure_key_to_hex(key, hex);
    bool ok = fprintf(f, "%s %s\n", t->endpoint, hex) > 0;
    return fclose(f) == 0 && ok;
}

rs_client_key_trust rs_client__trust_check(const rs_client_trust *t,
                                           const uint8_t key[RS_SECURE_KEY_LEN], char *why,
                                           size_t why_len)
{
    char hex[65];
    rs_secure_key_to_hex(key, hex);
    if (t->pinned) {
        if (memcmp(key, t->pin, RS_SECURE_KEY_LEN) == 0)
            return RS_CLIENT_KEY_PINNED;
        rs_errf(why, why_len, "the server at %s presents key %.16s..., not the pinned one",
                t->endpoint, hex);
        return RS_CLIENT_KEY_NONE;
    }
    if (!t->known_hosts[0])
        return RS_CLIENT_KEY_UNVERIFIED;
    uint8_t known[RS_SECURE_KEY_LEN];
    if (remembered(t, known)) {
        if (memcmp(key, known, RS_SECURE_KEY_LEN) == 0)
            return RS_CLIENT_KEY_KNOWN;
        rs_errf(why, why_len,
                "the server at %s presents key %.16s..., not the key %s remembers for it: "
                "someone may be impersonating it; if its operator changed the key, remove "
                "that line",
                t->endpoint, hex, t->known_hosts);
        return RS_CLIENT_KEY_NONE;
    }
    (void)remember(t, key); /* if it cannot be written, trusted this time only */
    return RS_CLIENT_KEY_NEW;
}
