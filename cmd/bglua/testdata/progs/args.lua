print("args: " .. table.concat(arg, " "))
