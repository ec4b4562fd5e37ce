// Package reg registers resources with an io_uring instance through
// io_uring_register(2): fixed files, fixed buffers, provided-buffer rings,
// eventfds, personalities, restrictions and BPF filters, io-wq limits,
// registered ring fds, NAPI, the wait clock, memory regions, zero-copy
// receive, and the synchronous calls (probe, queries, sync cancel,
// ring-less MSG_RING, resize).
//
// Everything registers on a Target, which *uring.Ring satisfies (FdTarget
// wraps a raw ring fd). A target that also implements GuardedTarget keeps
// its fd from being closed (and the number reused) during each call.
//
// # Errors
//
// A failed io_uring_register(2) call returns *Error: the register opcode,
// the kernel's error (an *os.SyscallError wrapping unix.Errno, so
// errors.Is(err, unix.EEXIST) works) and a hint at the likely cause, e.g.
// "reg: REGISTER_PBUF_RING: io_uring_register: file exists (the group id is
// already registered on this ring)". Nothing is hidden or retried. An
// argument that cannot be right is rejected before the call with
// *ArgError, which names it and unwraps to unix.EINVAL. Nothing panics.
// Features are not assumed: a kernel answers EINVAL both to a register
// opcode or flag it lacks and to a bad value. reg puts every EINVAL to the
// feature probes (package uring's Check*): when the kernel lacks the
// opcode or a flag the call used (IOU_PBUF_RING_MMAP, IOU_PBUF_RING_INC,
// IORING_RSRC_REGISTER_SPARSE, NAPI static tracking), the *Error's Err is
// a *uring.UnsupportedError naming it and the release that added it, and
// the error matches uring.ErrUnsupported (and errors.ErrUnsupported);
// otherwise the hint names the value at fault.
//
// # Memory lifetime
//
// Memory the kernel keeps using after a call returns lives off the Go heap,
// mapped by this package with mmap: fixed buffers (Buffers), provided
// buffers and their rings (BufPool, BufRing, LegacyPool), and memory regions
// (Region). The garbage collector never moves or frees it. It is unmapped
// only when nothing can use it any more:
//   - Buffers: Acquire before submitting a request that uses the table,
//     Release after its CQE; Unregister unmaps when the last acquired
//     request is released (clones share the memory and hold it too). The
//     kernel does not need Acquire (it holds the pages a request uses); the
//     mapping does, when Unregister may come while the request is in flight.
//     Unregister never blocks on requests in flight: Linux 6.13 and later
//     drop the table at once (the memory stays mapped until the last
//     Release); before 6.13 the kernel's unregister would wait for them,
//     so with acquired requests in flight Unregister returns
//     ErrBuffersInUse and changes nothing.
//   - BufPool: a buffer id is out from Take (the CQE that delivered it) to
//     Put; Close unmaps once no id is out. An id is never handed out twice;
//     Put of an id that is not out is an error that changes nothing; a CQE
//     without IORING_CQE_F_BUFFER (an error CQE) hands out and recycles
//     nothing. TakeBundle decodes a bundle receive's CQE
//     (IORING_RECVSEND_BUNDLE, Linux 6.10), which names only the first of
//     the buffers it filled: the pool records which id it wrote at each
//     ring entry and walks them in ring order. Each buffer is out until
//     its own Put.
//   - Region: lives as long as the ring (the kernel has no unregister).
//
// Closing the ring drops the kernel's side of every registration, not the
// memory reg mapped: Buffers.Unregister, BufPool.Close, BufRing.Unregister,
// LegacyPool.Close, Region.Free and ZcrxIfq.Free unmap it, before or after
// the ring's Close (after it they only unmap). Skipped, it stays mapped for
// the life of the process.
//
// # Provided buffers on every kernel
//
// NewBufPool uses the best mechanism the kernel has, behind one API
// (BufPool.Mechanism says which): a kernel-mapped buffer ring
// (IOU_PBUF_RING_MMAP, Linux 6.4), else a ring in memory reg maps (5.19 to
// 6.3, or PoolConfig.UserMemory), else IORING_OP_PROVIDE_BUFFERS (before
// 5.19). Incremental consumption (IOU_PBUF_RING_INC, 6.12) changes what a
// CQE means, so a kernel without it is an *uring.UnsupportedError, never a
// fallback. A PROVIDE_BUFFERS pool queues its own SQEs on the ring
// (NewBufPool, Put, Close; each submitted at once) with user_data
// InternalUserData: the completion loop must ignore their CQEs, as poll's
// and task's do. Before 5.19 a buffer-select read or receive with length 0
// reads 0 bytes (the kernel caps the length at the buffer's rather than
// taking 0 as "all of it"): BufPool.Select sets the buffer size there.
// PoolConfig.Mechanism forces one mechanism (tests run the fallbacks on new
// kernels with it).
//
// Arrays passed to a register call (fds, tags, iovecs) are pinned for the
// call and may be reused once it returns: the kernel copies them.
//
// Fixed-file slots are sqe.Slot values, never bare ints. A slot registered
// with a nonzero tag posts a CQE with user_data = tag and res = 0 once the
// file has really left the table: after an update or unregister replaced
// it and every request still using it has completed. Fixed buffers take
// tags the same way (BufferConfig.Tags, Buffers.UpdateTagged). Tag CQEs
// arrive on the ring's CQ among request CQEs: reserve a user_data range.
// When depends on the kernel: from Linux 6.13 a release nothing waits for
// posts its tag during the register call, and Unregister posts the tags of
// the slots it releases; before 6.13 Unregister posts no tags, and an
// update's tag comes later, from a workqueue, once the old resources'
// references are dropped (some are cached for the submitting task until
// its next io_uring_enter; the work runs up to a second later).
//
// # Threads
//
// Register calls may come from any goroutine, but the kernel serialises
// them per ring, and the types here are not safe for concurrent use unless
// their comment says so (Buffers' Acquire, Release, Get and Put are). A
// BufPool belongs to the goroutine that reaps the ring's CQEs. Registered
// ring fds (RegisterRingFd) belong to the OS thread that registered them:
// lock the goroutine to it.
//
// # Zero-copy receive
//
// RegisterZcrxIfq (IORING_REGISTER_ZCRX_IFQ, Linux 6.15) binds a hardware rx
// queue of a NIC to a ring: payloads of the flows the NIC steers to that
// queue land in an area reg maps off the Go heap, IORING_OP_RECV_ZC
// (sqe.RecvZC with ZcrxIfq.ID) posts CQE32s whose extras (sys.ZcrxCQE) say
// where, ZcrxIfq.Data returns those bytes and ZcrxIfq.Recycle hands them
// back through the refill ring (a release store of its tail). The kernel
// wants CAP_NET_ADMIN (else EPERM), a ring with DEFER_TASKRUN and CQE32 or
// CQE_MIXED (refused here with *ArgError when the target knows its setup
// flags, EINVAL otherwise) and a NIC driver with the queue-management API
// and header split on (tcp-data-split; EINVAL when off). Virtual interfaces
// (lo, veth, ifb) and drivers without the API, virtio_net included, answer
// EOPNOTSUPP; an rx queue out of range, ERANGE; a queue that already has a
// memory provider, EEXIST. The *Error's hint names the interface and the
// cause. There is no unregister: the queue, and the pages the kernel pinned,
// live until the ring is closed; ZcrxIfq.Free unmaps reg's view after that.
//
// Linux 6.18 register opcodes not covered: the pre-5.13 forms superseded
// here (REGISTER_FILES, REGISTER_BUFFERS, REGISTER_FILES_UPDATE), whose "2"
// versions are used instead.
package reg
