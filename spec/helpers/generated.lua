-- Generated profiles for the specs that need a model of some megabytes (memory, background
-- loads): every number follows from the arguments, so the totals are known.
local generated = {}

--- A profile of `functions` functions with `lines` line records each (line l of function f
--- costs f + l Ir and l Dr) and a call from each function to the one before it (10 Ir, 1 Dr,
--- inclusive: not part of the totals).
function generated.profile_text(functions, lines)
  local out = { "events: Ir Dr", "" }
  for f = 1, functions do
    out[#out + 1] = ("fl=(%d) file%d.c"):format(f % 97 + 1, f % 97)
    out[#out + 1] = ("fn=(%d) function_%d"):format(f, f)
    for l = 1, lines do
      out[#out + 1] = ("%d %d %d"):format(l * 3, f + l, l)
    end
    if f > 1 then
      out[#out + 1] = ("cfn=(%d)"):format(f - 1)
      out[#out + 1] = "calls=1 1"
      out[#out + 1] = ("%d 10 1"):format(lines * 3 + 1)
    end
    out[#out + 1] = ""
  end
  return table.concat(out, "\n")
end

--- The Ir total of generated.profile_text(functions, lines).
function generated.ir_total(functions, lines)
  -- the sum over f and l of f + l: a call's cost line is the callee's, not the caller's
  return math.floor(lines * functions * (functions + 1) / 2 + functions * lines * (lines + 1) / 2)
end

return generated
