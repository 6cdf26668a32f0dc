-- callgrind.command.callers: the calls made to a function (see callgrind.command.calls).
local calls = require "callgrind.command.calls"

local callers = calls.command("callers")

return callers
