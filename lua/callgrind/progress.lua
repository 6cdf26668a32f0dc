-- callgrind.progress: a progress bar on stderr for long loads.
--
--   local prof = callgrind.load(path, { progress = progress.bar() })
--
-- The bar appears only when stderr is a terminal and the input is big enough, or the load long
-- enough, to take a while; otherwise the callback does nothing.
local system = require "callgrind.system"

local progress = {}

local function stderr_is_terminal()
  return system.execute("[ -t 2 ]")
end

--- A callback for the `progress` option of callgrind.load.
--- opts.min_bytes (default 4 MiB): smaller inputs draw nothing; opts.delay (default 0): seconds
--- of processor time from the first call before the bar appears, so that quick loads draw
--- nothing; opts.width (default 40); opts.out (default io.stderr); opts.terminal: whether to
--- draw, instead of asking whether stderr is a terminal; opts.clock (default os.clock): the
--- clock the delay is measured with.
function progress.bar(opts)
  opts = opts or {}
  local min_bytes = opts.min_bytes or 4 * 1024 * 1024
  local delay = opts.delay or 0
  local clock = opts.clock or os.clock
  local width = opts.width or 40
  local out = opts.out or io.stderr
  local enabled, started
  local last_shown = -1
  return function(done, total)
    if enabled == nil then
      local terminal = opts.terminal
      if terminal == nil then terminal = stderr_is_terminal() end
      enabled = total >= min_bytes and terminal
      started = clock()
    end
    if not enabled or total <= 0 then return end
    -- the last call comes at the end of the input: a load that took no longer than the delay
    -- ends without a bar
    if last_shown < 0 and clock() - started < delay then return end
    local fraction = done / total
    if fraction > 1 then fraction = 1 end
    local filled = math.floor(fraction * width + 0.5)
    local percent = math.floor(fraction * 100 + 0.5)
    if percent == last_shown then return end
    last_shown = percent
    out:write(string.format("\r[%s%s] %3d%% of %.1f MB", string.rep("#", filled),
      string.rep(" ", width - filled), percent, total / 1e6))
    if done >= total then out:write("\n") end
    out:flush()
  end
end

return progress
