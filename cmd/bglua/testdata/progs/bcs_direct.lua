print(bcs.timeslice())
