module github.com/pure-uring/uring

go 1.24.0

require (
	github.com/cilium/ebpf v0.21.0
	github.com/stretchr/testify v1.11.1
	golang.org/x/net v0.46.0
	golang.org/x/sys v0.40.0
)

require (
	github.com/davecgh/go-spew v1.1.2-0.20180830191138-d8f796af33cc // indirect
	github.com/pmezard/go-difflib v1.0.1-0.20181226105442-5d4384ee4fb2 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
