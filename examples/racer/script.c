#include "script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>

typedef enum step_kind { STEP_DOWN, STEP_UP, STEP_SCREENSHOT, STEP_QUIT } step_kind;

typedef struct step {
    double t_s;
    size_t order; /* its place in the file: steps at one time run in file order */
    step_kind kind;
    SDL_Keycode key;
} step;

struct racer_script {
    step *steps;
    size_t count, next;
};

/* One non-empty, non-comment line into *st; false with a reason in err. */
static bool parse_line(char *line, step *st, char *err, size_t err_len)
{
    char action[32] = "", key[64] = "";
    int n = sscanf(line, "%lf %31s %63s", &st->t_s, action, key);
    if (n < 2) {
        snprintf(err, err_len, "expected 'TIME ACTION [KEY]'");
        return false;
    }
    if (!strcmp(action, "down") || !strcmp(action, "up")) {
        st->kind = !strcmp(action, "down") ? STEP_DOWN : STEP_UP;
        st->key = n == 3 ? SDL_GetKeyFromName(key) : SDLK_UNKNOWN;
        if (st->key == SDLK_UNKNOWN) {
            snprintf(err, err_len, "'%s' needs a key SDL knows by name, not '%s'", action, key);
            return false;
        }
    } else if (!strcmp(action, "screenshot")) {
        st->kind = STEP_SCREENSHOT;
    } else if (!strcmp(action, "quit")) {
        st->kind = STEP_QUIT;
    } else {
        snprintf(err, err_len, "unknown action '%s' (down, up, screenshot, quit)", action);
        return false;
    }
    return true;
}

static int by_time(const void *a, const void *b)
{
    const step *x = a, *y = b;
    if (x->t_s != y->t_s)
        return (x->t_s > y->t_s) - (x->t_s < y->t_s);
    return (x->order > y->order) - (x->order < y->order);
}

bool racer_script_load(const char *path, racer_script **out, char *err, size_t err_len)
{
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_len, "%s: cannot open", path);
        return false;
    }
    racer_script *s = calloc(1, sizeof *s);
    size_t cap = 0;
    char line[256], why[160];
    bool ok = s != NULL;
    if (!ok)
        snprintf(err, err_len, "%s: out of memory", path);
    for (unsigned lineno = 1; ok && fgets(line, sizeof line, f); lineno++) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        if (strspn(line, " \t\r\n") == strlen(line))
            continue;
        if (s->count == cap) {
            cap = cap ? cap * 2 : 16;
            step *grown = realloc(s->steps, cap * sizeof *grown);
            if (!grown) {
                snprintf(err, err_len, "%s: out of memory", path);
                ok = false;
                break;
            }
            s->steps = grown;
        }
        if (!parse_line(line, &s->steps[s->count], why, sizeof why)) {
            snprintf(err, err_len, "%s:%u: %s", path, lineno, why);
            ok = false;
        }
        s->steps[s->count].order = s->count;
        s->count++;
    }
    fclose(f);
    if (!ok) {
        racer_script_destroy(s);
        return false;
    }
    qsort(s->steps, s->count, sizeof *s->steps, by_time);
    *out = s;
    return true;
}

static void push_key(SDL_Keycode key, bool down, uint32_t window_id)
{
    SDL_Event ev;
    SDL_zero(ev);
    ev.type = down ? SDL_KEYDOWN : SDL_KEYUP;
    ev.key.timestamp = SDL_GetTicks();
    ev.key.windowID = window_id;
    ev.key.state = down ? SDL_PRESSED : SDL_RELEASED;
    ev.key.keysym.sym = key;
    ev.key.keysym.scancode = SDL_GetScancodeFromKey(key);
    SDL_PushEvent(&ev);
}

bool racer_script_run(racer_script *s, double t_s, uint32_t window_id)
{
    bool screenshot = false;
    while (s && s->next < s->count && s->steps[s->next].t_s <= t_s) {
        const step *st = &s->steps[s->next++];
        switch (st->kind) {
        case STEP_DOWN:
        case STEP_UP:
            push_key(st->key, st->kind == STEP_DOWN, window_id);
            break;
        case STEP_SCREENSHOT:
            screenshot = true;
            break;
        case STEP_QUIT: {
            SDL_Event ev;
            SDL_zero(ev);
            ev.type = SDL_QUIT;
            SDL_PushEvent(&ev);
            break;
        }
        }
    }
    return screenshot;
}

void racer_script_destroy(racer_script *s)
{
    if (!s)
        return;
    free(s->steps);
    free(s);
}
