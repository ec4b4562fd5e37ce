package atomicx

import "sync/atomic"

// StoreFull32 stores v at *addr with a full barrier (sequentially
// consistent, sync/atomic.StoreUint32: XCHG on amd64; STLR on arm64, which
// no later LDAR passes; AMOSWAP.aqrl on riscv64), so that no later atomic
// load is ordered before it. Use it where a ring index is
// published and a following load must see the kernel's reaction: the SQ tail
// under SQPOLL, then IORING_SQ_NEED_WAKEUP. Everywhere else use
// StoreRelease32.
func StoreFull32(addr *uint32, v uint32) { atomic.StoreUint32(addr, v) }
