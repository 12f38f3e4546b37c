-- The bookings rows' requests for wrk (bench/load.ts, `generator: "wrk"`; docs/performance.md#benchmark):
-- wrk is C, so the load generator takes a few hundredths of a millisecond a booking from the two
-- cores it shares with the server and PostgreSQL, where autocannon took 0.4-0.6 (the floor's
-- pgbench is C too). load.ts draws the requests in advance (each a free slot of its own) and writes
-- them one a line: path, token, Idempotency-Key (empty for none), body, tab-separated; the body's
-- patient is "Patient <line number>". One thread (-t1: a thread's lines are its own; one thread of C
-- keeps 20 connections busy at these rates); the warm-up and the measured run take other lines.
--   wrk -t1 -c20 -d20s -s bookings.lua URL -- <requests file> <retry share> <first line> <last line>
-- A request after the last line is an error (the file ran out: load.ts draws more than a row can send).
-- Exact retries: with probability share / (1 + share) the next request repeats a keyed booking that
-- already answered 201, and its answer must name the same appointment. wrk does not say which request
-- an answer is for, so the answer names it: every booking's patient is "Patient <number>", which the
-- appointment repeats. Printed by done() as one JSON line.

local requests = {}
local keyed = {}
local first_id = {}
local answered = {}
local retry_chance = 0
local next_line = 1
local last_line = 0
statuses = {}
retries_sent = 0
retries_same = 0
retries_other = 0
ran_out = 0

local function split(line)
  local fields = {}
  for field in (line .. "\t"):gmatch("([^\t]*)\t") do fields[#fields + 1] = field end
  return fields
end

function init(args)
  local file = assert(io.open(args[1], "r"))
  local share = tonumber(args[2]) or 0
  retry_chance = share / (1 + share)
  next_line = tonumber(args[3]) or 1
  last_line = tonumber(args[4]) or math.huge
  local line_number = 0
  for line in file:lines() do
    line_number = line_number + 1
    if line_number >= next_line and line_number <= last_line then
      local f = split(line)
      local path, token, key, body = f[1], f[2], f[3], f[4]
      local headers = { ["content-type"] = "application/json", ["authorization"] = "Bearer " .. token }
      if key ~= "" then
        headers["idempotency-key"] = key
        keyed[line_number] = true
      end
      requests[line_number] = wrk.format("POST", path, headers, body)
    end
  end
  file:close()
  last_line = math.min(last_line, line_number)
  math.randomseed(os.time())
end

function request()
  if #answered > 0 and math.random() < retry_chance then
    retries_sent = retries_sent + 1
    return requests[answered[math.random(#answered)]]
  end
  if next_line > last_line then
    ran_out = ran_out + 1
    next_line = next_line + 1
    return wrk.format("GET", "/v1/ran-out-of-drawn-bookings")
  end
  local raw = requests[next_line]
  next_line = next_line + 1
  return raw
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if status ~= 200 and status ~= 201 then return end
  local n = tonumber(body:match('"name":"Patient (%d+)"'))
  local id = body:match('"id":"([0-9a-f%-]+)"')
  if n == nil or id == nil or not keyed[n] then return end
  local known = first_id[n]
  if known == nil then
    first_id[n] = id
    answered[#answered + 1] = n
    if #answered > 1000 then table.remove(answered, 1) end
  elseif known == id then
    retries_same = retries_same + 1
  else
    retries_other = retries_other + 1
  end
end

local threads = {}

function setup(thread)
  threads[#threads + 1] = thread
end

function done(summary, latency, requests_summary)
  local merged, sent, same, other, out = {}, 0, 0, 0, 0
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do merged[status] = (merged[status] or 0) + count end
    sent = sent + thread:get("retries_sent")
    same = same + thread:get("retries_same")
    other = other + thread:get("retries_other")
    out = out + thread:get("ran_out")
  end
  local parts = {}
  for status, count in pairs(merged) do parts[#parts + 1] = string.format('"%d":%d', status, count) end
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"statuses":{%s},"retries_sent":%d,"retries_same":%d,"retries_other":%d,"ran_out":%d}\n',
    summary.requests, summary.duration, math.floor(latency:percentile(50)), math.floor(latency:percentile(99)), e.connect, e.read,
    e.write, e.status, e.timeout, table.concat(parts, ","), sent, same, other, out))
end
