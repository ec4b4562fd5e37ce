//go:build linux

package sqe_test

import (
	"testing"
	"time"

	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Memory the golden cases point at; only addresses matter.
var (
	gBuf     = make([]byte, 100)
	gIov     = make([]unix.Iovec, 3)
	gPath    = []byte("dir/file\x00")
	gPath2   = []byte("other\x00")
	gPath3   = []byte("/tmp/x\x00")
	gName    = []byte("user.k\x00")
	gStatx   unix.Statx_t
	gMsg     unix.Msghdr
	gEv      unix.EpollEvent
	gEvents  = make([]unix.EpollEvent, 8)
	gTS      sys.Timespec
	gSA4     unix.RawSockaddrInet4
	gSA6     unix.RawSockaddrInet6
	gAny     unix.RawSockaddrAny
	gSalen   uint32
	gHow     = unix.OpenHow{Flags: unix.O_RDONLY}
	gFds     [2]int32
	gFdTab   = []int32{3, 4, -1}
	gFutex   uint32
	gWaiters = make([]sqe.FutexWaiter, 2)
	gInfo    unix.Siginfo
)

func a[T any](s []T) uint64 { return sys.SliceAddr(s) }
func p[T any](v *T) uint64  { return sys.PtrAddr(v) }

type golden struct {
	name  string
	build func(s *sys.SQE) error
	want  sys.SQE
}

func ok(f func(s *sys.SQE)) func(s *sys.SQE) error {
	return func(s *sys.SQE) error { f(s); return nil }
}

const (
	cloexec  = uint32(unix.O_CLOEXEC)
	sockExec = uint32(unix.SOCK_CLOEXEC)
)

func goldens() []golden {
	fdcwd := uint32(0xffffff9c) // AT_FDCWD as the u32 len field
	return []golden{
		{"Nop", ok(sqe.Nop), sys.SQE{Opcode: sys.OpNop, Fd: -1}},
		{"NopResult", ok(func(s *sys.SQE) { sqe.NopResult(s, -5) }), sys.SQE{Opcode: sys.OpNop, Fd: -1, Len: 0xfffffffb, OpFlags: sys.NopInjectResult}},
		{"Readv", func(s *sys.SQE) error { return sqe.Readv(s, 3, gIov, 8) }, sys.SQE{Opcode: sys.OpReadv, Fd: 3, Addr: a(gIov), Len: 3, Off: 8}},
		{"Readv2", func(s *sys.SQE) error { return sqe.Readv2(s, 3, gIov, -1, unix.RWF_NOWAIT) }, sys.SQE{Opcode: sys.OpReadv, Fd: 3, Addr: a(gIov), Len: 3, Off: ^uint64(0), OpFlags: unix.RWF_NOWAIT}},
		{"Writev", func(s *sys.SQE) error { return sqe.Writev(s, 4, gIov[:2], 0) }, sys.SQE{Opcode: sys.OpWritev, Fd: 4, Addr: a(gIov), Len: 2}},
		{"Writev2", func(s *sys.SQE) error { return sqe.Writev2(s, 4, gIov, 1, unix.RWF_DSYNC) }, sys.SQE{Opcode: sys.OpWritev, Fd: 4, Addr: a(gIov), Len: 3, Off: 1, OpFlags: unix.RWF_DSYNC}},
		{"Fsync", func(s *sys.SQE) error { return sqe.Fsync(s, 5, sys.FsyncDatasync) }, sys.SQE{Opcode: sys.OpFsync, Fd: 5, OpFlags: sys.FsyncDatasync}},
		{"ReadFixed", func(s *sys.SQE) error { return sqe.ReadFixed(s, 3, gBuf[10:20], 4096, 2) }, sys.SQE{Opcode: sys.OpReadFixed, Fd: 3, Addr: a(gBuf) + 10, Len: 10, Off: 4096, BufIndex: 2}},
		{"WriteFixed", func(s *sys.SQE) error { return sqe.WriteFixed(s, 3, gBuf, 0, 7) }, sys.SQE{Opcode: sys.OpWriteFixed, Fd: 3, Addr: a(gBuf), Len: 100, BufIndex: 7}},
		{"PollAdd", func(s *sys.SQE) error { return sqe.PollAdd(s, 6, unix.POLLIN) }, sys.SQE{Opcode: sys.OpPollAdd, Fd: 6, OpFlags: unix.POLLIN}},
		{"PollMultishot", func(s *sys.SQE) error { return sqe.PollMultishot(s, 6, unix.POLLOUT) }, sys.SQE{Opcode: sys.OpPollAdd, Fd: 6, Len: sys.PollAddMulti, OpFlags: unix.POLLOUT}},
		{"PollRemove", ok(func(s *sys.SQE) { sqe.PollRemove(s, 99) }), sys.SQE{Opcode: sys.OpPollRemove, Fd: -1, Addr: 99}},
		{"PollUpdate", func(s *sys.SQE) error {
			return sqe.PollUpdate(s, 1, 2, unix.POLLIN, sys.PollUpdateEvents|sys.PollUpdateUserData)
		}, sys.SQE{Opcode: sys.OpPollRemove, Fd: -1, Addr: 1, Off: 2, Len: sys.PollUpdateEvents | sys.PollUpdateUserData, OpFlags: unix.POLLIN}},
		{"SyncFileRange", func(s *sys.SQE) error { return sqe.SyncFileRange(s, 3, 512, 1024, unix.SYNC_FILE_RANGE_WRITE) }, sys.SQE{Opcode: sys.OpSyncFileRange, Fd: 3, Off: 512, Len: 1024, OpFlags: unix.SYNC_FILE_RANGE_WRITE}},
		{"Sendmsg", func(s *sys.SQE) error { return sqe.Sendmsg(s, 7, &gMsg, unix.MSG_NOSIGNAL) }, sys.SQE{Opcode: sys.OpSendmsg, Fd: 7, Addr: p(&gMsg), Len: 1, OpFlags: unix.MSG_NOSIGNAL}},
		{"Recvmsg", func(s *sys.SQE) error { return sqe.Recvmsg(s, 7, &gMsg, unix.MSG_WAITALL) }, sys.SQE{Opcode: sys.OpRecvmsg, Fd: 7, Addr: p(&gMsg), Len: 1, OpFlags: unix.MSG_WAITALL}},
		{"RecvmsgMultishot", func(s *sys.SQE) error { return sqe.RecvmsgMultishot(s, 7, &gMsg, 0, 3) }, sys.SQE{Opcode: sys.OpRecvmsg, Flags: sys.SQEBufferSelect, Ioprio: sys.RecvMultishot, Fd: 7, Addr: p(&gMsg), Len: 1, BufIndex: 3}},
		{"Timeout", func(s *sys.SQE) error { return sqe.Timeout(s, &gTS, 1500*time.Millisecond, 2, sys.TimeoutBoottime) }, sys.SQE{Opcode: sys.OpTimeout, Fd: -1, Addr: p(&gTS), Len: 1, Off: 2, OpFlags: sys.TimeoutBoottime}},
		{"TimeoutMultishot", func(s *sys.SQE) error { return sqe.Timeout(s, &gTS, time.Millisecond, 0, sys.TimeoutMultishot) }, sys.SQE{Opcode: sys.OpTimeout, Fd: -1, Addr: p(&gTS), Len: 1, OpFlags: sys.TimeoutMultishot}},
		{"TimeoutAt", func(s *sys.SQE) error { return sqe.TimeoutAt(s, &gTS, time.Unix(10, 5), 0) }, sys.SQE{Opcode: sys.OpTimeout, Fd: -1, Addr: p(&gTS), Len: 1, OpFlags: sys.TimeoutAbs | sys.TimeoutRealtime}},
		{"TimeoutRemove", ok(func(s *sys.SQE) { sqe.TimeoutRemove(s, 42) }), sys.SQE{Opcode: sys.OpTimeoutRemove, Fd: -1, Addr: 42}},
		{"TimeoutUpdate", func(s *sys.SQE) error { return sqe.TimeoutUpdate(s, &gTS, time.Second, 42, 0) }, sys.SQE{Opcode: sys.OpTimeoutRemove, Fd: -1, Addr: 42, Off: p(&gTS), OpFlags: sys.TimeoutUpdate}},
		{"TimeoutAbs", func(s *sys.SQE) error { return sqe.TimeoutAbs(s, &gTS, time.Hour, 1, 0) }, sys.SQE{Opcode: sys.OpTimeout, Fd: -1, Addr: p(&gTS), Len: 1, Off: 1, OpFlags: sys.TimeoutAbs}},
		{"TimeoutAbsBoottime", func(s *sys.SQE) error {
			return sqe.TimeoutAbs(s, &gTS, time.Hour, 0, sys.TimeoutBoottime|sys.TimeoutETimeSuccess)
		}, sys.SQE{Opcode: sys.OpTimeout, Fd: -1, Addr: p(&gTS), Len: 1, OpFlags: sys.TimeoutAbs | sys.TimeoutBoottime | sys.TimeoutETimeSuccess}},
		{"TimeoutUpdateAbs", func(s *sys.SQE) error { return sqe.TimeoutUpdate(s, &gTS, time.Second, 42, sys.TimeoutAbs) }, sys.SQE{Opcode: sys.OpTimeoutRemove, Fd: -1, Addr: 42, Off: p(&gTS), OpFlags: sys.TimeoutUpdate | sys.TimeoutAbs}},
		{"LinkTimeoutUpdate", func(s *sys.SQE) error { return sqe.LinkTimeoutUpdate(s, &gTS, time.Second, 43, 0) }, sys.SQE{Opcode: sys.OpTimeoutRemove, Fd: -1, Addr: 43, Off: p(&gTS), OpFlags: sys.TimeoutUpdate | sys.LinkTimeoutUpdate}},
		{"LinkTimeoutUpdateAbs", func(s *sys.SQE) error { return sqe.LinkTimeoutUpdate(s, &gTS, time.Second, 43, sys.TimeoutAbs) }, sys.SQE{Opcode: sys.OpTimeoutRemove, Fd: -1, Addr: 43, Off: p(&gTS), OpFlags: sys.TimeoutUpdate | sys.LinkTimeoutUpdate | sys.TimeoutAbs}},
		{"Accept", func(s *sys.SQE) error { return sqe.Accept(s, 8, &gAny, &gSalen, unix.SOCK_NONBLOCK) }, sys.SQE{Opcode: sys.OpAccept, Fd: 8, Addr: p(&gAny), Off: p(&gSalen), OpFlags: unix.SOCK_NONBLOCK | sockExec}},
		{"AcceptNil", func(s *sys.SQE) error { return sqe.Accept(s, 8, nil, nil, 0) }, sys.SQE{Opcode: sys.OpAccept, Fd: 8, OpFlags: sockExec}},
		{"AcceptDirect", func(s *sys.SQE) error { return sqe.AcceptDirect(s, 8, nil, nil, 0, 4) }, sys.SQE{Opcode: sys.OpAccept, Fd: 8, FileIndex: 5}},
		{"AcceptDirectAlloc", func(s *sys.SQE) error { return sqe.AcceptDirect(s, 8, nil, nil, 0, sqe.AllocSlot) }, sys.SQE{Opcode: sys.OpAccept, Fd: 8, FileIndex: sys.FileIndexAlloc}},
		{"AcceptMultishot", func(s *sys.SQE) error { return sqe.AcceptMultishot(s, 8, nil, nil, 0) }, sys.SQE{Opcode: sys.OpAccept, Fd: 8, Ioprio: sys.AcceptMultishot, OpFlags: sockExec}},
		{"AcceptMultishotDirect", func(s *sys.SQE) error { return sqe.AcceptMultishotDirect(s, 8, nil, nil, 0) }, sys.SQE{Opcode: sys.OpAccept, Fd: 8, Ioprio: sys.AcceptMultishot, FileIndex: sys.FileIndexAlloc}},
		{"Cancel", func(s *sys.SQE) error { return sqe.Cancel(s, 77, sys.AsyncCancelAll) }, sys.SQE{Opcode: sys.OpAsyncCancel, Fd: -1, Addr: 77, OpFlags: sys.AsyncCancelAll}},
		{"CancelFd", func(s *sys.SQE) error { return sqe.CancelFd(s, 9, 0) }, sys.SQE{Opcode: sys.OpAsyncCancel, Fd: 9, OpFlags: sys.AsyncCancelFd}},
		{"CancelSlot", func(s *sys.SQE) error { return sqe.CancelSlot(s, 2, sys.AsyncCancelAll) }, sys.SQE{Opcode: sys.OpAsyncCancel, Fd: 2, OpFlags: sys.AsyncCancelFd | sys.AsyncCancelFdFixed | sys.AsyncCancelAll}},
		{"CancelOp", func(s *sys.SQE) error { return sqe.CancelOp(s, sys.OpRead, 0) }, sys.SQE{Opcode: sys.OpAsyncCancel, Fd: -1, Len: uint32(sys.OpRead), OpFlags: sys.AsyncCancelOp}},
		{"CancelAny", ok(sqe.CancelAny), sys.SQE{Opcode: sys.OpAsyncCancel, Fd: -1, OpFlags: sys.AsyncCancelAny}},
		{"LinkTimeout", func(s *sys.SQE) error { return sqe.LinkTimeout(s, &gTS, time.Second, 0) }, sys.SQE{Opcode: sys.OpLinkTimeout, Fd: -1, Addr: p(&gTS), Len: 1}},
		{"LinkTimeoutAbs", func(s *sys.SQE) error { return sqe.LinkTimeoutAbs(s, &gTS, time.Second, sys.TimeoutRealtime) }, sys.SQE{Opcode: sys.OpLinkTimeout, Fd: -1, Addr: p(&gTS), Len: 1, OpFlags: sys.TimeoutAbs | sys.TimeoutRealtime}},
		{"Connect", func(s *sys.SQE) error { return sqe.Connect(s, 10, &gSA4) }, sys.SQE{Opcode: sys.OpConnect, Fd: 10, Addr: p(&gSA4), Off: 16}},
		{"Connect6", func(s *sys.SQE) error { return sqe.Connect(s, 10, &gSA6) }, sys.SQE{Opcode: sys.OpConnect, Fd: 10, Addr: p(&gSA6), Off: 28}},
		{"Fallocate", func(s *sys.SQE) error { return sqe.Fallocate(s, 3, unix.FALLOC_FL_KEEP_SIZE, 4096, 1<<33) }, sys.SQE{Opcode: sys.OpFallocate, Fd: 3, Addr: 1 << 33, Len: unix.FALLOC_FL_KEEP_SIZE, Off: 4096}},
		{"Openat", func(s *sys.SQE) error { return sqe.Openat(s, unix.AT_FDCWD, gPath, unix.O_RDWR|unix.O_CREAT, 0o644) }, sys.SQE{Opcode: sys.OpOpenat, Fd: unix.AT_FDCWD, Addr: a(gPath), Len: 0o644, OpFlags: unix.O_RDWR | unix.O_CREAT | cloexec}},
		{"OpenatDirect", func(s *sys.SQE) error { return sqe.OpenatDirect(s, 5, gPath, unix.O_RDONLY, 0, 0) }, sys.SQE{Opcode: sys.OpOpenat, Fd: 5, Addr: a(gPath), FileIndex: 1}},
		{"OpenatDirectAlloc", func(s *sys.SQE) error { return sqe.OpenatDirect(s, 5, gPath, 0, 0, sqe.AllocSlot) }, sys.SQE{Opcode: sys.OpOpenat, Fd: 5, Addr: a(gPath), FileIndex: sys.FileIndexAlloc}},
		{"Close", func(s *sys.SQE) error { return sqe.Close(s, 11) }, sys.SQE{Opcode: sys.OpClose, Fd: 11}},
		{"CloseDirect", func(s *sys.SQE) error { return sqe.CloseDirect(s, sqe.MaxSlot) }, sys.SQE{Opcode: sys.OpClose, FileIndex: 1 << 20}},
		{"FilesUpdate", func(s *sys.SQE) error { return sqe.FilesUpdate(s, gFdTab, 3) }, sys.SQE{Opcode: sys.OpFilesUpdate, Fd: -1, Addr: a(gFdTab), Len: 3, Off: 3}},
		{"FilesUpdateAlloc", func(s *sys.SQE) error { return sqe.FilesUpdate(s, gFdTab, sqe.AllocSlot) }, sys.SQE{Opcode: sys.OpFilesUpdate, Fd: -1, Addr: a(gFdTab), Len: 3, Off: uint64(sys.FileIndexAlloc)}},
		{"Statx", func(s *sys.SQE) error {
			return sqe.Statx(s, 3, gPath, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BASIC_STATS, &gStatx)
		}, sys.SQE{Opcode: sys.OpStatx, Fd: 3, Addr: a(gPath), Len: unix.STATX_BASIC_STATS, Off: p(&gStatx), OpFlags: unix.AT_SYMLINK_NOFOLLOW}},
		{"Read", func(s *sys.SQE) error { return sqe.Read(s, 3, gBuf, 12) }, sys.SQE{Opcode: sys.OpRead, Fd: 3, Addr: a(gBuf), Len: 100, Off: 12}},
		{"ReadEmpty", func(s *sys.SQE) error { return sqe.Read(s, 3, nil, sqe.CurrentPos) }, sys.SQE{Opcode: sys.OpRead, Fd: 3, Off: ^uint64(0)}},
		{"ReadSelect", func(s *sys.SQE) error { return sqe.ReadSelect(s, 3, 64, 0, 9) }, sys.SQE{Opcode: sys.OpRead, Flags: sys.SQEBufferSelect, Fd: 3, Len: 64, BufIndex: 9}},
		{"Write", func(s *sys.SQE) error { return sqe.Write(s, 4, gBuf[:5], 0) }, sys.SQE{Opcode: sys.OpWrite, Fd: 4, Addr: a(gBuf), Len: 5}},
		{"Fadvise", func(s *sys.SQE) error { return sqe.Fadvise(s, 3, 100, 200, unix.FADV_DONTNEED) }, sys.SQE{Opcode: sys.OpFadvise, Fd: 3, Off: 100, Len: 200, OpFlags: unix.FADV_DONTNEED}},
		{"Madvise", func(s *sys.SQE) error { return sqe.Madvise(s, gBuf, unix.MADV_WILLNEED) }, sys.SQE{Opcode: sys.OpMadvise, Fd: -1, Addr: a(gBuf), Len: 100, OpFlags: unix.MADV_WILLNEED}},
		{"Send", func(s *sys.SQE) error { return sqe.Send(s, 7, gBuf[:3], unix.MSG_MORE) }, sys.SQE{Opcode: sys.OpSend, Fd: 7, Addr: a(gBuf), Len: 3, OpFlags: unix.MSG_MORE}},
		{"SendTo", func(s *sys.SQE) error { return sqe.SendTo(s, 7, gBuf[:3], 0, &gSA4) }, sys.SQE{Opcode: sys.OpSend, Fd: 7, Addr: a(gBuf), Len: 3, Off: p(&gSA4), FileIndex: 16}},
		{"SendBundle", func(s *sys.SQE) error { return sqe.SendBundle(s, 7, 0, 0, 4) }, sys.SQE{Opcode: sys.OpSend, Flags: sys.SQEBufferSelect, Ioprio: sys.RecvsendBundle, Fd: 7, BufIndex: 4}},
		{"Recv", func(s *sys.SQE) error { return sqe.Recv(s, 7, gBuf, unix.MSG_DONTWAIT) }, sys.SQE{Opcode: sys.OpRecv, Fd: 7, Addr: a(gBuf), Len: 100, OpFlags: unix.MSG_DONTWAIT}},
		{"RecvMultishot", func(s *sys.SQE) error { return sqe.RecvMultishot(s, 7, 0, 5) }, sys.SQE{Opcode: sys.OpRecv, Flags: sys.SQEBufferSelect, Ioprio: sys.RecvMultishot, Fd: 7, BufIndex: 5}},
		{"RecvBundle", func(s *sys.SQE) error { return sqe.RecvBundle(s, 7, 0, 5, true) }, sys.SQE{Opcode: sys.OpRecv, Flags: sys.SQEBufferSelect, Ioprio: sys.RecvsendBundle | sys.RecvMultishot, Fd: 7, BufIndex: 5}},
		{"Openat2", func(s *sys.SQE) error { return sqe.Openat2(s, unix.AT_FDCWD, gPath, &gHow) }, sys.SQE{Opcode: sys.OpOpenat2, Fd: unix.AT_FDCWD, Addr: a(gPath), Len: 24, Off: p(&gHow)}},
		{"Openat2Direct", func(s *sys.SQE) error { return sqe.Openat2Direct(s, 3, gPath, &gHow, 9) }, sys.SQE{Opcode: sys.OpOpenat2, Fd: 3, Addr: a(gPath), Len: 24, Off: p(&gHow), FileIndex: 10}},
		{"EpollCtl", func(s *sys.SQE) error { return sqe.EpollCtl(s, 12, 13, unix.EPOLL_CTL_ADD, &gEv) }, sys.SQE{Opcode: sys.OpEpollCtl, Fd: 12, Addr: p(&gEv), Len: unix.EPOLL_CTL_ADD, Off: 13}},
		{"EpollCtlDel", func(s *sys.SQE) error { return sqe.EpollCtl(s, 12, 13, unix.EPOLL_CTL_DEL, nil) }, sys.SQE{Opcode: sys.OpEpollCtl, Fd: 12, Len: unix.EPOLL_CTL_DEL, Off: 13}},
		{"Splice", func(s *sys.SQE) error { return sqe.Splice(s, 14, 100, 15, sqe.CurrentPos, 4096, unix.SPLICE_F_MOVE) }, sys.SQE{Opcode: sys.OpSplice, Fd: 15, Addr: 100, Off: ^uint64(0), Len: 4096, FileIndex: 14, OpFlags: unix.SPLICE_F_MOVE}},
		{"SpliceFixedIn", func(s *sys.SQE) error { return sqe.Splice(s, 2, -1, 15, -1, 1, sys.SpliceFdInFixed) }, sys.SQE{Opcode: sys.OpSplice, Fd: 15, Addr: ^uint64(0), Off: ^uint64(0), Len: 1, FileIndex: 2, OpFlags: sys.SpliceFdInFixed}},
		{"ProvideBuffers", func(s *sys.SQE) error { return sqe.ProvideBuffers(s, gBuf, 10, 10, 7, 100) }, sys.SQE{Opcode: sys.OpProvideBuffers, Fd: 10, Addr: a(gBuf), Len: 10, Off: 100, BufIndex: 7}},
		{"RemoveBuffers", func(s *sys.SQE) error { return sqe.RemoveBuffers(s, 10, 7) }, sys.SQE{Opcode: sys.OpRemoveBuffers, Fd: 10, BufIndex: 7}},
		{"Tee", func(s *sys.SQE) error { return sqe.Tee(s, 14, 15, 512, 0) }, sys.SQE{Opcode: sys.OpTee, Fd: 15, Len: 512, FileIndex: 14}},
		{"Shutdown", func(s *sys.SQE) error { return sqe.Shutdown(s, 7, unix.SHUT_WR) }, sys.SQE{Opcode: sys.OpShutdown, Fd: 7, Len: unix.SHUT_WR}},
		{"Renameat", func(s *sys.SQE) error { return sqe.Renameat(s, 3, gPath, unix.AT_FDCWD, gPath2, unix.RENAME_NOREPLACE) }, sys.SQE{Opcode: sys.OpRenameat, Fd: 3, Addr: a(gPath), Len: fdcwd, Off: a(gPath2), OpFlags: unix.RENAME_NOREPLACE}},
		{"Unlinkat", func(s *sys.SQE) error { return sqe.Unlinkat(s, 3, gPath, unix.AT_REMOVEDIR) }, sys.SQE{Opcode: sys.OpUnlinkat, Fd: 3, Addr: a(gPath), OpFlags: unix.AT_REMOVEDIR}},
		{"Mkdirat", func(s *sys.SQE) error { return sqe.Mkdirat(s, 3, gPath, 0o755) }, sys.SQE{Opcode: sys.OpMkdirat, Fd: 3, Addr: a(gPath), Len: 0o755}},
		{"Symlinkat", func(s *sys.SQE) error { return sqe.Symlinkat(s, gPath, 4, gPath2) }, sys.SQE{Opcode: sys.OpSymlinkat, Fd: 4, Addr: a(gPath), Off: a(gPath2)}},
		{"Linkat", func(s *sys.SQE) error { return sqe.Linkat(s, 3, gPath, 4, gPath2, unix.AT_SYMLINK_FOLLOW) }, sys.SQE{Opcode: sys.OpLinkat, Fd: 3, Addr: a(gPath), Len: 4, Off: a(gPath2), OpFlags: unix.AT_SYMLINK_FOLLOW}},
		{"MsgRing", func(s *sys.SQE) error { return sqe.MsgRing(s, 20, -3, 0xdead) }, sys.SQE{Opcode: sys.OpMsgRing, Fd: 20, Addr: sys.MsgData, Len: 0xfffffffd, Off: 0xdead}},
		{"MsgRingCQEFlags", func(s *sys.SQE) error { return sqe.MsgRingCQEFlags(s, 20, 1, 2, 0x8000) }, sys.SQE{Opcode: sys.OpMsgRing, Fd: 20, Len: 1, Off: 2, OpFlags: sys.MsgRingFlagsPass, FileIndex: 0x8000}},
		{"MsgRingFd", func(s *sys.SQE) error { return sqe.MsgRingFd(s, 20, 3, 6, 0xbeef, sys.MsgRingCQESkip) }, sys.SQE{Opcode: sys.OpMsgRing, Fd: 20, Addr: sys.MsgSendFd, Off: 0xbeef, Addr3: 3, FileIndex: 7, OpFlags: sys.MsgRingCQESkip}},
		{"MsgRingFdAlloc", func(s *sys.SQE) error { return sqe.MsgRingFd(s, 20, 0, sqe.AllocSlot, 1, 0) }, sys.SQE{Opcode: sys.OpMsgRing, Fd: 20, Addr: sys.MsgSendFd, Off: 1, FileIndex: sys.FileIndexAlloc}},
		{"Fsetxattr", func(s *sys.SQE) error { return sqe.Fsetxattr(s, 3, gName, gBuf[:4], unix.XATTR_CREATE) }, sys.SQE{Opcode: sys.OpFsetxattr, Fd: 3, Addr: a(gName), Len: 4, Off: a(gBuf), OpFlags: unix.XATTR_CREATE}},
		{"Setxattr", func(s *sys.SQE) error { return sqe.Setxattr(s, gPath3, gName, gBuf[:4], 0) }, sys.SQE{Opcode: sys.OpSetxattr, Addr: a(gName), Len: 4, Off: a(gBuf), Addr3: a(gPath3)}},
		{"Fgetxattr", func(s *sys.SQE) error { return sqe.Fgetxattr(s, 3, gName, gBuf) }, sys.SQE{Opcode: sys.OpFgetxattr, Fd: 3, Addr: a(gName), Len: 100, Off: a(gBuf)}},
		{"Getxattr", func(s *sys.SQE) error { return sqe.Getxattr(s, gPath3, gName, gBuf) }, sys.SQE{Opcode: sys.OpGetxattr, Addr: a(gName), Len: 100, Off: a(gBuf), Addr3: a(gPath3)}},
		{"Socket", func(s *sys.SQE) error { return sqe.Socket(s, unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_TCP) }, sys.SQE{Opcode: sys.OpSocket, Fd: unix.AF_INET, Off: uint64(unix.SOCK_STREAM | sockExec), Len: unix.IPPROTO_TCP}},
		{"SocketDirect", func(s *sys.SQE) error { return sqe.SocketDirect(s, unix.AF_UNIX, unix.SOCK_DGRAM, 0, sqe.AllocSlot) }, sys.SQE{Opcode: sys.OpSocket, Fd: unix.AF_UNIX, Off: unix.SOCK_DGRAM, FileIndex: sys.FileIndexAlloc}},
		{"SockInq", func(s *sys.SQE) error { return sqe.SockInq(s, 7) }, sys.SQE{Opcode: sys.OpUringCmd, Fd: 7, Off: uint64(sys.SocketUringOpSIOCINQ)}},
		{"SockOutq", func(s *sys.SQE) error { return sqe.SockOutq(s, 7) }, sys.SQE{Opcode: sys.OpUringCmd, Fd: 7, Off: uint64(sys.SocketUringOpSIOCOUTQ)}},
		{"Getsockname", func(s *sys.SQE) error { return sqe.Getsockname(s, 7, &gAny, &gSalen, true) }, sys.SQE{Opcode: sys.OpUringCmd, Fd: 7, Off: uint64(sys.SocketUringOpGetsockname), Addr: p(&gAny), Addr3: p(&gSalen), FileIndex: 1}},
		{"Getsockopt", func(s *sys.SQE) error { return sqe.Getsockopt(s, 7, unix.SOL_SOCKET, unix.SO_RCVBUF, gBuf[:4]) }, sys.SQE{Opcode: sys.OpUringCmd, Fd: 7, Off: uint64(sys.SocketUringOpGetsockopt), Addr: unix.SOL_SOCKET | unix.SO_RCVBUF<<32, FileIndex: 4, Addr3: a(gBuf)}},
		{"Setsockopt", func(s *sys.SQE) error { return sqe.Setsockopt(s, 7, unix.SOL_SOCKET, unix.SO_SNDBUF, gBuf[:4]) }, sys.SQE{Opcode: sys.OpUringCmd, Fd: 7, Off: uint64(sys.SocketUringOpSetsockopt), Addr: unix.SOL_SOCKET | unix.SO_SNDBUF<<32, FileIndex: 4, Addr3: a(gBuf)}},
		{"UringCmd", func(s *sys.SQE) error { return sqe.UringCmd(s, 7, 0x1234, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9}) }, sys.SQE{Opcode: sys.OpUringCmd, Fd: 7, Off: 0x1234, Addr3: 0x0807060504030201, Pad2: 0x09}},
		{"SendZC", func(s *sys.SQE) error { return sqe.SendZC(s, 7, gBuf, 0, sys.SendZCReportUsage) }, sys.SQE{Opcode: sys.OpSendZC, Ioprio: sys.SendZCReportUsage, Fd: 7, Addr: a(gBuf), Len: 100}},
		{"SendZCFixed", func(s *sys.SQE) error { return sqe.SendZCFixed(s, 7, gBuf[:8], unix.MSG_WAITALL, 0, 3) }, sys.SQE{Opcode: sys.OpSendZC, Ioprio: sys.RecvsendFixedBuf, Fd: 7, Addr: a(gBuf), Len: 8, OpFlags: unix.MSG_WAITALL, BufIndex: 3}},
		{"SendmsgZC", func(s *sys.SQE) error { return sqe.SendmsgZC(s, 7, &gMsg, 0) }, sys.SQE{Opcode: sys.OpSendmsgZC, Fd: 7, Addr: p(&gMsg), Len: 1}},
		{"SendmsgZCFixed", func(s *sys.SQE) error { return sqe.SendmsgZCFixed(s, 7, &gMsg, 0, 2) }, sys.SQE{Opcode: sys.OpSendmsgZC, Ioprio: sys.RecvsendFixedBuf, Fd: 7, Addr: p(&gMsg), Len: 1, BufIndex: 2}},
		{"ReadMultishot", func(s *sys.SQE) error { return sqe.ReadMultishot(s, 3, 0, 0, 6) }, sys.SQE{Opcode: sys.OpReadMultishot, Flags: sys.SQEBufferSelect, Fd: 3, BufIndex: 6}},
		{"Waitid", func(s *sys.SQE) error { return sqe.Waitid(s, unix.P_PID, 1234, &gInfo, unix.WEXITED) }, sys.SQE{Opcode: sys.OpWaitid, Fd: 1234, Len: unix.P_PID, Off: p(&gInfo), FileIndex: unix.WEXITED}},
		{"FutexWait", func(s *sys.SQE) error { return sqe.FutexWait(s, &gFutex, 5, sqe.FutexBitsetAny, sqe.FutexPrivate) }, sys.SQE{Opcode: sys.OpFutexWait, Fd: 0x82, Addr: p(&gFutex), Off: 5, Addr3: 0xffffffff}},
		{"FutexWake", func(s *sys.SQE) error { return sqe.FutexWake(s, &gFutex, 1, 3, 0) }, sys.SQE{Opcode: sys.OpFutexWake, Fd: 0x02, Addr: p(&gFutex), Off: 1, Addr3: 3}},
		{"FutexWaitv", func(s *sys.SQE) error { return sqe.FutexWaitv(s, gWaiters) }, sys.SQE{Opcode: sys.OpFutexWaitv, Addr: a(gWaiters), Len: 2}},
		{"FixedFdInstall", func(s *sys.SQE) error { return sqe.InstallFd(s, 3, sys.FixedFdNoCloexec) }, sys.SQE{Opcode: sys.OpFixedFdInstall, Flags: sys.SQEFixedFile, Fd: 3, OpFlags: sys.FixedFdNoCloexec}},
		{"Ftruncate", func(s *sys.SQE) error { return sqe.Ftruncate(s, 3, 1<<40) }, sys.SQE{Opcode: sys.OpFtruncate, Fd: 3, Off: 1 << 40}},
		{"Bind", func(s *sys.SQE) error { return sqe.Bind(s, 7, &gSA6) }, sys.SQE{Opcode: sys.OpBind, Fd: 7, Addr: p(&gSA6), Off: 28}},
		{"Listen", func(s *sys.SQE) error { return sqe.Listen(s, 7, 128) }, sys.SQE{Opcode: sys.OpListen, Fd: 7, Len: 128}},
		{"RecvZC", func(s *sys.SQE) error { return sqe.RecvZC(s, 7, 0, 0, 1) }, sys.SQE{Opcode: sys.OpRecvZC, Ioprio: sys.RecvMultishot, Fd: 7, FileIndex: 1}},
		{"EpollWait", func(s *sys.SQE) error { return sqe.EpollWait(s, 12, gEvents, 0) }, sys.SQE{Opcode: sys.OpEpollWait, Fd: 12, Addr: a(gEvents), Len: 8}},
		{"ReadvFixed", func(s *sys.SQE) error { return sqe.ReadvFixed(s, 3, gIov, 64, unix.RWF_HIPRI, 1) }, sys.SQE{Opcode: sys.OpReadvFixed, Fd: 3, Addr: a(gIov), Len: 3, Off: 64, OpFlags: unix.RWF_HIPRI, BufIndex: 1}},
		{"WritevFixed", func(s *sys.SQE) error { return sqe.WritevFixed(s, 3, gIov, 64, 0, 1) }, sys.SQE{Opcode: sys.OpWritevFixed, Fd: 3, Addr: a(gIov), Len: 3, Off: 64, BufIndex: 1}},
		{"Pipe", func(s *sys.SQE) error { return sqe.Pipe(s, &gFds, unix.O_NONBLOCK) }, sys.SQE{Opcode: sys.OpPipe, Addr: p(&gFds), OpFlags: unix.O_NONBLOCK | cloexec}},
		{"PipeDirect", func(s *sys.SQE) error { return sqe.PipeDirect(s, &gFds, 0, 4) }, sys.SQE{Opcode: sys.OpPipe, Addr: p(&gFds), FileIndex: 5}},
		// Modifiers on top of a builder.
		{"Modifiers", func(s *sys.SQE) error {
			if err := sqe.Read(s, 0, gBuf, 0); err != nil {
				return err
			}
			sqe.SetLink(s)
			sqe.SetAsync(s)
			sqe.SetDrain(s)
			sqe.SetSkipSuccess(s)
			sqe.SetPersonality(s, 3)
			sqe.SetIoprio(s, 0x4004)
			sqe.SetUserData(s, 0x1122334455667788)
			return sqe.SetSlot(s, 6)
		}, sys.SQE{Opcode: sys.OpRead, Flags: sys.SQEIOLink | sys.SQEAsync | sys.SQEIODrain | sys.SQECQESkipSuccess | sys.SQEFixedFile,
			Ioprio: 0x4004, Fd: 6, Addr: a(gBuf), Len: 100, UserData: 0x1122334455667788, Personality: 3}},
		{"HardLinkBufferSelect", func(s *sys.SQE) error {
			if err := sqe.Recv(s, 7, nil, 0); err != nil {
				return err
			}
			sqe.SetHardLink(s)
			sqe.SetBufferSelect(s, 12)
			return nil
		}, sys.SQE{Opcode: sys.OpRecv, Flags: sys.SQEIOHardlink | sys.SQEBufferSelect, Fd: 7, BufIndex: 12}},
	}
}

// garbage is what an SQE holds before a builder runs: every byte set, so a
// field a builder forgets to write shows.
func garbage() sys.SQE {
	return sys.SQE{Opcode: 0xff, Flags: 0xff, Ioprio: 0xffff, Fd: -7, Off: ^uint64(0), Addr: ^uint64(0),
		Len: ^uint32(0), OpFlags: ^uint32(0), UserData: ^uint64(0), BufIndex: 0xffff, Personality: 0xffff,
		FileIndex: ^uint32(0), Addr3: ^uint64(0), Pad2: ^uint64(0)}
}

func TestGolden(t *testing.T) {
	seen := map[sys.Op]bool{}
	names := map[string]bool{}
	for _, g := range goldens() {
		require.False(t, names[g.name], "duplicate case %s", g.name)
		names[g.name] = true
		s := garbage()
		if g.name == "Modifiers" || g.name == "HardLinkBufferSelect" {
			s = sys.SQE{}
		}
		require.NoError(t, g.build(&s), g.name)
		require.Equal(t, g.want, s, g.name)
		seen[g.want.Opcode] = true
	}
	for op := sys.OpNop; op <= sys.OpPipe; op++ {
		require.True(t, seen[op], "no golden case for %v", op)
	}
}

func TestGoldenTimespec(t *testing.T) {
	var ts sys.Timespec
	var s sys.SQE
	require.NoError(t, sqe.Timeout(&s, &ts, 2*time.Second+3*time.Nanosecond, 0, 0))
	require.Equal(t, sys.Timespec{Sec: 2, Nsec: 3}, ts)
	require.NoError(t, sqe.TimeoutAt(&s, &ts, time.Unix(10, 5), 0))
	require.Equal(t, sys.Timespec{Sec: 10, Nsec: 5}, ts)
	require.NoError(t, sqe.TimeoutAbs(&s, &ts, 7*time.Second+9, 0, 0))
	require.Equal(t, sys.Timespec{Sec: 7, Nsec: 9}, ts)
	require.NoError(t, sqe.LinkTimeoutAbs(&s, &ts, 3*time.Second+1, 0))
	require.Equal(t, sys.Timespec{Sec: 3, Nsec: 1}, ts)
	require.NoError(t, sqe.SetTimespec(&ts, 1500*time.Millisecond))
	require.Equal(t, sys.Timespec{Sec: 1, Nsec: 5e8}, ts)
}

func TestUringCmd128(t *testing.T) {
	cmd := make([]byte, 80)
	for i := range cmd {
		cmd[i] = byte(i + 1)
	}
	for _, c := range []struct {
		name  string
		build func(s *sys.SQE128, fd int, cmdOp uint32, cmd []byte) error
		op    sys.Op
	}{
		{"UringCmdSQE128", sqe.UringCmdSQE128, sys.OpUringCmd},
		{"UringCmd128", sqe.UringCmd128, sys.OpUringCmd128},
	} {
		t.Run(c.name, func(t *testing.T) {
			var s sys.SQE128
			require.NoError(t, c.build(&s, 3, 9, cmd))
			require.Equal(t, c.op, s.Opcode)
			require.Equal(t, uint64(9), s.Off)
			require.Equal(t, uint64(0x0807060504030201), s.Addr3)
			require.Equal(t, uint64(0x100f0e0d0c0b0a09), s.Pad2)
			require.Equal(t, cmd[16:], s.Cmd[:])
			require.EqualError(t, c.build(&s, 3, 9, make([]byte, 81)), "sqe: "+c.name+": len(cmd) = 81 exceeds 80")
		})
	}
}
