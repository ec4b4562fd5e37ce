//go:build linux && soak

package tests

// soakTag is true under the "soak" build tag: the load tests run their
// long versions (go test -tags soak -run Soak -timeout 60m ./tests/).
const soakTag = true
