-- callgrind.command.callees: the calls a function makes (see callgrind.command.calls).
return require("callgrind.command.calls").command("callees")
