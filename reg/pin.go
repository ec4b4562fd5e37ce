//go:build linux

package reg

import (
	"runtime"

	"github.com/pure-uring/uring/sys"
)

// addrOf pins s (so that the address stays valid and the memory reachable
// while the kernel reads it during the register call) and returns its
// address, or 0 for an empty slice. The caller unpins after the call.
func addrOf[T any](p *runtime.Pinner, s []T) uint64 {
	if len(s) == 0 {
		return 0
	}
	p.Pin(&s[0])
	return sys.SliceAddr(s)
}
