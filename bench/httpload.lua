-- wrk's requests for bench/httpload.sh: the live timing of each room, the
-- status and /metrics in turn, as dashboards and pages would ask.
local paths = { "/api/v1/rooms/room1", "/api/v1/status", "/api/v1/rooms/room2", "/metrics",
                "/api/v1/rooms/room3", "/api/v1/rooms" }
local i = 0
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
