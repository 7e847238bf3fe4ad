print("rbs-host")
