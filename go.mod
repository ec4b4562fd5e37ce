module github.com/pure-uring/uring

go 1.24.0

require (
	github.com/cilium/ebpf v0.21.0 // indirect
	github.com/stretchr/testify v1.11.1 // indirect
	golang.org/x/sys v0.40.0 // indirect
)
