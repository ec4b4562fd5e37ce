//go:build !linux

package reg

// BufPool is a provided-buffer ring with its buffers (see the Linux build).
// Off Linux there is no io_uring: the type exists so that portable code
// (the task layer's multishot iterators) compiles, and no pool can be made.
type BufPool struct{}
