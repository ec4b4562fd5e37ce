//go:build !amd64 || race

package atomicx

import "sync/atomic"

// StoreRelease32 stores v at *addr with (at least) release semantics.
func StoreRelease32(addr *uint32, v uint32) { atomic.StoreUint32(addr, v) }
