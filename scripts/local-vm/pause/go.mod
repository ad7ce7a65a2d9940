module local-vm/pause

go 1.24
