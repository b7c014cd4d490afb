v1
