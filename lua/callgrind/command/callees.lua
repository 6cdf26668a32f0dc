-- callgrind.command.callees: the calls a function makes (see callgrind.command.calls).
local calls = require "callgrind.command.calls"

local callees = calls.command("callees")

return callees
