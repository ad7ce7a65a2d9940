module local-vm/runc-wrapper

go 1.24
