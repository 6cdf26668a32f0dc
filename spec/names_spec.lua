-- callgrind.names: the readable names the call graphs and the flame graphs share.
local callgrind = require "callgrind"
local names = require "callgrind.names"
local dot = require "callgrind.dot"

describe("callgrind.names", function()
  it("is the module callgrind.names and dot's name helpers", function()
    assert.are.equal(names, callgrind.names)
    assert.are.equal(names.strip, dot.strip_name)
    assert.are.equal(names.wrap, dot.wrap_name)
  end)

  it("writes control characters and bytes that are not UTF-8 as visible \\xNN", function()
    assert.are.equal("caf\\xE9\\x09x", names.clean("caf\233\tx"))
    assert.are.equal("caf\195\169", names.clean("caf\195\169")) -- valid UTF-8 stays
    assert.are.equal("\\xED\\xA0\\x80", names.clean("\237\160\128")) -- a surrogate is not UTF-8
    assert.are.equal("\\xC0\\xAF", names.clean("\192\175")) -- nor an overlong form
    assert.are.equal("plain", names.clean("plain"))
  end)

  it("counts characters, not bytes", function()
    assert.are.equal(4, names.width("caf\195\169"))
    assert.are.equal(0, names.width(""))
  end)

  it("strips argument lists, template arguments and trailing qualifiers of C++ names", function()
    assert.are.equal("std::vector::push_back", names.strip("std::vector<int>::push_back(int const&) const"))
    assert.are.equal("std::map::find", names.strip("std::map<int, std::pair<int, int> >::find(int const&) const"))
    assert.are.equal("Foo::operator()", names.strip("Foo::operator()(int)"))
    assert.are.equal("std::less::operator<", names.strip("std::less<int>::operator<(int const&, int const&)"))
    assert.are.equal("(below main)", names.strip("(below main)"))
    assert.are.equal("<lambda()>", names.strip("<lambda()>")) -- nothing would be left: kept whole
  end)

  it("wraps names into lines of about a width, at the places a C++ name reads best", function()
    assert.are.same({ "std::map<std::", "string, int>::", "operator[](std::", "string const&)" },
      names.wrap("std::map<std::string, int>::operator[](std::string const&)", 20))
    assert.are.same({ "short" }, names.wrap("short"))
    local lines = names.wrap(string.rep("x", 90))
    assert.are.same({ string.rep("x", 40), string.rep("x", 40), string.rep("x", 10) }, lines)
  end)
end)
