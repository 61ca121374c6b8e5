return { { name = "x", run = function() end }
