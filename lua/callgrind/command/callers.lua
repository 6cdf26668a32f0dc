-- callgrind.command.callers: the calls made to a function (see callgrind.command.calls).
return require("callgrind.command.calls").command("callers")
