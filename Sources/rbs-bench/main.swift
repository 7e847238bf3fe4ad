print("rbs-bench")
