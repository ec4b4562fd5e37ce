//go:build amd64 && !race

package atomicx

// StoreRelease32 stores v at *addr with release semantics.
//
//go:noescape
func StoreRelease32(addr *uint32, v uint32)
