-- wrk's requests for bench/httpload.sh: the live timing of each room, the
-- status and /metrics in turn, as pages and dashboards ask for them. With
-- HTTPLOAD_DELAY_MS each connection waits that long between requests (a
-- page polling), without it wrk asks as fast as it can (a flood).
local paths = { "/api/v1/rooms/room1", "/api/v1/status", "/api/v1/rooms/room2", "/metrics",
                "/api/v1/rooms/room3", "/api/v1/rooms" }
local i = 0
local pause = tonumber(os.getenv("HTTPLOAD_DELAY_MS") or "0")
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
if pause > 0 then
  delay = function() return pause end
end
