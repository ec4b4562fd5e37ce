//go:build linux

package sqe_test

import (
	"errors"
	"testing"
	"time"

	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

type invalid struct {
	build func(s *sys.SQE) error
	msg   string
}

func invalids() []invalid {
	var ts sys.Timespec
	var fds [2]int32
	var futex uint32
	msg := unix.Msghdr{Iovlen: 1}
	return []invalid{
		{func(s *sys.SQE) error { return sqe.Read(s, -1, gBuf, 0) }, "sqe: Read: fd = -1 is negative"},
		{func(s *sys.SQE) error { return sqe.Read(s, 1<<31, gBuf, 0) }, "sqe: Read: fd = 2147483648 exceeds 31 bits"},
		{func(s *sys.SQE) error { return sqe.Read(s, 3, gBuf, -2) }, "sqe: Read: off = -2 is below -1"},
		{func(s *sys.SQE) error { return sqe.Write(s, -5, gBuf, 0) }, "sqe: Write: fd = -5 is negative"},
		{func(s *sys.SQE) error { return sqe.Readv(s, 3, make([]unix.Iovec, 1025), 0) }, "sqe: Readv: len(iov) = 1025 exceeds IOV_MAX (1024)"},
		{func(s *sys.SQE) error { return sqe.Writev2(s, 3, make([]unix.Iovec, 2000), 0, 0) }, "sqe: Writev2: len(iov) = 2000 exceeds IOV_MAX (1024)"},
		{func(s *sys.SQE) error { return sqe.Fsync(s, 3, 2) }, "sqe: Fsync: flags has unknown bits 0x2"},
		{func(s *sys.SQE) error { return sqe.Openat(s, 3, []byte("a\x00b\x00"), 0, 0) }, "sqe: Openat: path has a NUL at byte 1"},
		{func(s *sys.SQE) error { return sqe.Openat(s, 3, []byte("abc"), 0, 0) }, "sqe: Openat: path is not NUL-terminated (use sqe.Path)"},
		{func(s *sys.SQE) error { return sqe.Openat(s, -3, gPath, 0, 0) }, "sqe: Openat: dirfd = -3 is neither AT_FDCWD nor a valid fd"},
		{func(s *sys.SQE) error { return sqe.OpenatDirect(s, 3, gPath, unix.O_CLOEXEC, 0, 1) }, "sqe: OpenatDirect: flags has O_CLOEXEC, which direct descriptors refuse"},
		{func(s *sys.SQE) error { return sqe.OpenatDirect(s, 3, gPath, 0, 0, 1<<20) }, "sqe: OpenatDirect: slot = 1048576 exceeds MaxSlot (1048575) and is not AllocSlot"},
		{func(s *sys.SQE) error { return sqe.Openat2(s, 3, gPath, nil) }, "sqe: Openat2: how is nil"},
		{func(s *sys.SQE) error { return sqe.CloseDirect(s, sqe.AllocSlot) }, "sqe: CloseDirect: slot = 4294967295 exceeds MaxSlot (1048575)"},
		{func(s *sys.SQE) error { return sqe.Statx(s, 3, gPath, 0, 0, nil) }, "sqe: Statx: st is nil"},
		{func(s *sys.SQE) error { return sqe.Renameat(s, 3, gPath, 3, []byte{}, 0) }, "sqe: Renameat: newpath is not NUL-terminated (use sqe.Path)"},
		{func(s *sys.SQE) error { return sqe.Symlinkat(s, []byte("x"), 3, gPath) }, "sqe: Symlinkat: target is not NUL-terminated (use sqe.Path)"},
		{func(s *sys.SQE) error { return sqe.Fsetxattr(s, 3, gName, make([]byte, 65537), 0) }, "sqe: Fsetxattr: len(value) = 65537 exceeds XATTR_SIZE_MAX (65536)"},
		{func(s *sys.SQE) error { return sqe.Getxattr(s, gPath, []byte("n"), nil) }, "sqe: Getxattr: name is not NUL-terminated (use sqe.Path)"},
		{func(s *sys.SQE) error { return sqe.Socket(s, -1, 0, 0) }, "sqe: Socket: domain = -1 is out of range"},
		{func(s *sys.SQE) error {
			return sqe.SocketDirect(s, unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0, 0)
		}, "sqe: SocketDirect: typ has SOCK_CLOEXEC, which direct descriptors refuse"},
		{func(s *sys.SQE) error { return sqe.Connect[unix.RawSockaddrInet4](s, 3, nil) }, "sqe: Connect: sa is nil"},
		{func(s *sys.SQE) error { return sqe.Listen(s, 3, -1) }, "sqe: Listen: backlog = -1 is out of range"},
		{func(s *sys.SQE) error { return sqe.Shutdown(s, 3, 7) }, "sqe: Shutdown: how = 7 is not SHUT_RD, SHUT_WR or SHUT_RDWR"},
		{func(s *sys.SQE) error { return sqe.Accept(s, 3, &gAny, nil, 0) }, "sqe: Accept: sa, salen must both be nil or both be set"},
		{func(s *sys.SQE) error { return sqe.AcceptDirect(s, 3, nil, nil, unix.SOCK_CLOEXEC, 0) }, "sqe: AcceptDirect: flags has SOCK_CLOEXEC, which direct descriptors refuse"},
		{func(s *sys.SQE) error { return sqe.SendZC(s, 3, gBuf, 0, sys.RecvsendFixedBuf) }, "sqe: SendZC: zc has unknown bits 0x4"},
		{func(s *sys.SQE) error { return sqe.Sendmsg(s, 3, nil, 0) }, "sqe: Sendmsg: msg is nil"},
		{func(s *sys.SQE) error { return sqe.RecvmsgMultishot(s, 3, &msg, 0, 0) }, "sqe: RecvmsgMultishot: msg.Iovlen must be 0: the payload goes to a provided buffer"},
		{func(s *sys.SQE) error { return sqe.Timeout(s, nil, time.Second, 0, 0) }, "sqe: Timeout: ts is nil"},
		{func(s *sys.SQE) error { return sqe.Timeout(s, &ts, -time.Second, 0, 0) }, "sqe: Timeout: d = -1s is negative"},
		{func(s *sys.SQE) error { return sqe.Timeout(s, &ts, time.Second, 0, sys.TimeoutAbs) }, "sqe: Timeout: flags has TimeoutAbs: use TimeoutAbs for an absolute deadline"},
		{func(s *sys.SQE) error { return sqe.Timeout(s, &ts, time.Second, 0, sys.TimeoutUpdate) }, "sqe: Timeout: flags has unknown bits 0x2"},
		{func(s *sys.SQE) error { return sqe.TimeoutAbs(s, nil, time.Second, 0, 0) }, "sqe: TimeoutAbs: ts is nil"},
		{func(s *sys.SQE) error { return sqe.TimeoutAbs(s, &ts, -time.Second, 0, 0) }, "sqe: TimeoutAbs: at = -1s is negative"},
		{func(s *sys.SQE) error { return sqe.TimeoutAbs(s, &ts, time.Second, 0, sys.TimeoutMultishot) }, "sqe: TimeoutAbs: flags has TimeoutMultishot, which the kernel takes only with a relative time"},
		{func(s *sys.SQE) error {
			return sqe.TimeoutAbs(s, &ts, time.Second, 0, sys.TimeoutBoottime|sys.TimeoutRealtime)
		}, "sqe: TimeoutAbs: flags has both TimeoutBoottime and TimeoutRealtime"},
		{func(s *sys.SQE) error { return sqe.LinkTimeoutAbs(s, &ts, time.Second, sys.TimeoutETimeSuccess) }, "sqe: LinkTimeoutAbs: flags has unknown bits 0x20"},
		{func(s *sys.SQE) error { return sqe.LinkTimeout(s, &ts, time.Second, sys.TimeoutAbs) }, "sqe: LinkTimeout: flags has TimeoutAbs: use LinkTimeoutAbs for an absolute deadline"},
		{func(s *sys.SQE) error {
			return sqe.Timeout(s, &ts, time.Second, 0, sys.TimeoutBoottime|sys.TimeoutRealtime)
		}, "sqe: Timeout: flags has both TimeoutBoottime and TimeoutRealtime"},
		{func(s *sys.SQE) error { return sqe.TimeoutAt(s, &ts, time.Unix(-5, 0), 0) }, "sqe: TimeoutAt: at is before 1970"},
		{func(s *sys.SQE) error { return sqe.LinkTimeout(s, &ts, time.Second, sys.TimeoutMultishot) }, "sqe: LinkTimeout: flags has unknown bits 0x40"},
		{func(s *sys.SQE) error { return sqe.TimeoutUpdate(s, nil, time.Second, 1, 0) }, "sqe: TimeoutUpdate: ts is nil"},
		{func(s *sys.SQE) error { return sqe.TimeoutUpdate(s, &ts, time.Second, 1, sys.TimeoutBoottime) }, clockUpdate("TimeoutUpdate")},
		{func(s *sys.SQE) error { return sqe.LinkTimeoutUpdate(s, &ts, time.Second, 1, sys.TimeoutRealtime) }, clockUpdate("LinkTimeoutUpdate")},
		{func(s *sys.SQE) error { return sqe.TimeoutUpdate(s, &ts, time.Second, 1, sys.TimeoutETimeSuccess) }, "sqe: TimeoutUpdate: flags has unknown bits 0x20"},
		{func(s *sys.SQE) error { return sqe.Cancel(s, 1, sys.AsyncCancelAny) }, "sqe: Cancel: flags has unknown bits 0x4"},
		{func(s *sys.SQE) error { return sqe.CancelOp(s, sys.OpLast, 0) }, "sqe: CancelOp: op = 65 is not a known opcode"},
		{func(s *sys.SQE) error { return sqe.CancelSlot(s, 1<<21, 0) }, "sqe: CancelSlot: slot = 2097152 exceeds MaxSlot (1048575)"},
		{func(s *sys.SQE) error { return sqe.MsgRing(s, -1, 0, 0) }, "sqe: MsgRing: ringFd = -1 is negative"},
		{func(s *sys.SQE) error { return sqe.MsgRingFd(s, 3, 0, 0, 0, sys.MsgRingFlagsPass) }, "sqe: MsgRingFd: flags has unknown bits 0x2"},
		{func(s *sys.SQE) error { return sqe.MsgRingFd(s, 3, sqe.AllocSlot, 0, 0, 0) }, "sqe: MsgRingFd: src = 4294967295 exceeds MaxSlot (1048575)"},
		{func(s *sys.SQE) error { return sqe.FutexWait(s, nil, 0, 1, 0) }, "sqe: FutexWait: futex is nil"},
		{func(s *sys.SQE) error { return sqe.FutexWake(s, &futex, 1, 0, 0) }, "sqe: FutexWake: mask is 0 (use FutexBitsetAny)"},
		{func(s *sys.SQE) error { return sqe.FutexWait(s, &futex, 0, 1, 1) }, "sqe: FutexWait: flags has unknown bits 0x1"},
		{func(s *sys.SQE) error { return sqe.FutexWaitv(s, nil) }, "sqe: FutexWaitv: len(w) = 0 is not in [1, 128]"},
		{func(s *sys.SQE) error { return sqe.Waitid(s, unix.P_PID, 1, nil, 0) }, "sqe: Waitid: info is nil"},
		{func(s *sys.SQE) error { return sqe.FilesUpdate(s, nil, 0) }, "sqe: FilesUpdate: len(fds) is 0"},
		{func(s *sys.SQE) error { return sqe.InstallFd(s, 0, 2) }, "sqe: InstallFd: flags has unknown bits 0x2"},
		{func(s *sys.SQE) error { return sqe.ProvideBuffers(s, gBuf, 10, 11, 0, 0) }, "sqe: ProvideBuffers: len(mem) = 100 is less than nr*bufLen"},
		{func(s *sys.SQE) error { return sqe.ProvideBuffers(s, gBuf, 1, 2, 0, 65535) }, "sqe: ProvideBuffers: startID = 65535 leaves no room for nr ids"},
		{func(s *sys.SQE) error { return sqe.ProvideBuffers(s, gBuf, 0, 1, 0, 0) }, "sqe: ProvideBuffers: bufLen is 0"},
		{func(s *sys.SQE) error { return sqe.RemoveBuffers(s, 0, 0) }, "sqe: RemoveBuffers: nr = 0 is not in [1, 65536]"},
		{func(s *sys.SQE) error { return sqe.Splice(s, 3, -2, 4, 0, 1, 0) }, "sqe: Splice: offIn = -2 is below -1"},
		{func(s *sys.SQE) error { return sqe.Tee(s, 3, -1, 1, 0) }, "sqe: Tee: fdOut = -1 is negative"},
		{func(s *sys.SQE) error { return sqe.Pipe(s, nil, 0) }, "sqe: Pipe: fds is nil"},
		{func(s *sys.SQE) error { return sqe.Pipe(s, &fds, unix.O_RDWR) }, "sqe: Pipe: flags has unknown bits 0x2"},
		{func(s *sys.SQE) error { return sqe.PipeDirect(s, &fds, unix.O_CLOEXEC, 0) }, "sqe: PipeDirect: flags has O_CLOEXEC, which direct descriptors refuse"},
		{func(s *sys.SQE) error { return sqe.PipeDirect(s, &fds, 0, sqe.MaxSlot) }, "sqe: PipeDirect: slot = 1048575 leaves no room for the write end"},
		{func(s *sys.SQE) error { return sqe.EpollCtl(s, 3, 4, 9, &gEv) }, "sqe: EpollCtl: op = 9 is not EPOLL_CTL_ADD, MOD or DEL"},
		{func(s *sys.SQE) error { return sqe.EpollCtl(s, 3, 4, unix.EPOLL_CTL_ADD, nil) }, "sqe: EpollCtl: ev is nil"},
		{func(s *sys.SQE) error { return sqe.EpollWait(s, 3, nil, 0) }, "sqe: EpollWait: len(events) = 0 is not in [1, 2^31)"},
		{func(s *sys.SQE) error { return sqe.PollUpdate(s, 1, 2, 0, 16) }, "sqe: PollUpdate: flags has unknown bits 0x10"},
		{func(s *sys.SQE) error { return sqe.Getsockname(s, 3, nil, new(uint32), false) }, "sqe: Getsockname: sa is nil"},
		{func(s *sys.SQE) error { return sqe.Getsockname(s, 3, new(unix.RawSockaddrAny), nil, true) }, "sqe: Getsockname: salen is nil"},
		{func(s *sys.SQE) error { return sqe.Getsockname(s, -1, new(unix.RawSockaddrAny), new(uint32), true) }, "sqe: Getsockname: fd = -1 is negative"},
		{func(s *sys.SQE) error { return sqe.Getsockopt(s, 3, -1, 0, nil) }, "sqe: Getsockopt: level = -1 is out of range"},
		{func(s *sys.SQE) error { return sqe.UringCmd(s, 3, 0, make([]byte, 17)) }, "sqe: UringCmd: len(cmd) = 17 exceeds 16 (use UringCmdSQE128 on an SQE128 ring)"},
		{func(s *sys.SQE) error { return sqe.Ftruncate(s, 3, -1) }, "sqe: Ftruncate: length = -1 is negative"},
		{func(s *sys.SQE) error { return sqe.Fallocate(s, 3, 0, -1, 0) }, "sqe: Fallocate: off = -1 is negative"},
		{func(s *sys.SQE) error { return sqe.SetSlot(s, 1<<20) }, "sqe: SetSlot: slot = 1048576 exceeds MaxSlot (1048575)"},
	}
}

func TestInvalid(t *testing.T) {
	for _, c := range invalids() {
		s := garbage()
		err := c.build(&s)
		require.EqualError(t, err, c.msg)
		require.ErrorIs(t, err, unix.EINVAL, c.msg)
		var ae *sqe.ArgError
		require.True(t, errors.As(err, &ae))
		require.Equal(t, garbage(), s, "SQE touched on error: %s", c.msg)
	}
}

// TestLen32 hands a 5 GiB mapping (reserved, never touched) to every
// builder that takes a byte slice.
func TestLen32(t *testing.T) {
	huge, err := unix.Mmap(-1, 0, 5<<30, unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	require.NoError(t, err)
	defer unix.Munmap(huge)
	for name, f := range map[string]func(s *sys.SQE) error{
		"Read":        func(s *sys.SQE) error { return sqe.Read(s, 3, huge, 0) },
		"Write":       func(s *sys.SQE) error { return sqe.Write(s, 3, huge, 0) },
		"ReadFixed":   func(s *sys.SQE) error { return sqe.ReadFixed(s, 3, huge, 0, 0) },
		"WriteFixed":  func(s *sys.SQE) error { return sqe.WriteFixed(s, 3, huge, 0, 0) },
		"Send":        func(s *sys.SQE) error { return sqe.Send(s, 3, huge, 0) },
		"SendTo":      func(s *sys.SQE) error { return sqe.SendTo(s, 3, huge, 0, &gSA4) },
		"Recv":        func(s *sys.SQE) error { return sqe.Recv(s, 3, huge, 0) },
		"SendZC":      func(s *sys.SQE) error { return sqe.SendZC(s, 3, huge, 0, 0) },
		"SendZCFixed": func(s *sys.SQE) error { return sqe.SendZCFixed(s, 3, huge, 0, 0, 0) },
		"Madvise":     func(s *sys.SQE) error { return sqe.Madvise(s, huge, 0) },
	} {
		s := garbage()
		err := f(&s)
		arg := "len(buf)"
		if name == "Madvise" {
			arg = "len(mem)"
		}
		require.EqualError(t, err, "sqe: "+name+": "+arg+" = 5368709120 exceeds 32 bits")
		require.Equal(t, garbage(), s)
	}
}

func TestPath(t *testing.T) {
	b, err := sqe.Path("a/b")
	require.NoError(t, err)
	require.Equal(t, []byte("a/b\x00"), b)
	_, err = sqe.Path("a\x00b")
	require.EqualError(t, err, "sqe: Path: p has a NUL at byte 1")

	dst := make([]byte, 0, 64)
	allocs := testing.AllocsPerRun(100, func() { dst, _ = sqe.AppendPath(dst[:0], "some/path") })
	require.Zero(t, allocs)
	require.Equal(t, []byte("some/path\x00"), dst)
}

func TestIovecs(t *testing.T) {
	bufs := [][]byte{[]byte("ab"), nil, make([]byte, 7)}
	dst := make([]unix.Iovec, 0, 4)
	iov, err := sqe.Iovecs(dst, bufs)
	require.NoError(t, err)
	require.Len(t, iov, 3)
	require.Equal(t, &bufs[0][0], iov[0].Base)
	require.Equal(t, uint64(2), uint64(iov[0].Len))
	require.Nil(t, iov[1].Base)
	require.Zero(t, iov[1].Len)
	require.Equal(t, uint64(7), uint64(iov[2].Len))
	allocs := testing.AllocsPerRun(100, func() { iov, _ = sqe.Iovecs(dst, bufs) })
	require.Zero(t, allocs)

	_, err = sqe.Iovecs(nil, make([][]byte, 1025))
	require.EqualError(t, err, "sqe: Iovecs: len(bufs) = 1025 exceeds IOV_MAX (1024)")
}

func TestSetTimespec(t *testing.T) {
	var ts sys.Timespec
	require.Error(t, sqe.SetTimespec(&ts, -1))
	require.Equal(t, sys.Timespec{}, ts)
}

func TestPrepAllocs(t *testing.T) {
	var s sys.SQE
	buf := make([]byte, 4096)
	var ts sys.Timespec
	var sink error
	allocs := testing.AllocsPerRun(1000, func() {
		sqe.Nop(&s)
		sink = sqe.Read(&s, 3, buf, 0)
		sink = sqe.Write(&s, 3, buf, 0)
		sink = sqe.Recv(&s, 3, buf, 0)
		sink = sqe.Send(&s, 3, buf, 0)
		sink = sqe.Readv(&s, 3, gIov, 0)
		sink = sqe.Openat(&s, unix.AT_FDCWD, gPath, 0, 0)
		sink = sqe.Timeout(&s, &ts, time.Millisecond, 0, 0)
		sink = sqe.Connect(&s, 3, &gSA4)
		sink = sqe.SetSlot(&s, 1)
		sqe.SetUserData(&s, 1)
		sqe.SetLink(&s)
	})
	require.NoError(t, sink)
	require.Zero(t, allocs)
}

// TestFixedFilePlaceholderFd pins the documented way to reach a registered
// file: the builder refuses -1 (before writing anything) and takes 0,
// which SetSlot overwrites with the slot. (TestExecDirect runs such SQEs
// on the kernel.)
func TestFixedFilePlaceholderFd(t *testing.T) {
	buf := make([]byte, 8)
	var s sys.SQE
	require.EqualError(t, sqe.Read(&s, -1, buf, 0), "sqe: Read: fd = -1 is negative")
	require.Equal(t, sys.SQE{}, s, "a refused builder writes nothing")

	require.NoError(t, sqe.Read(&s, 0, buf, 0))
	require.NoError(t, sqe.SetSlot(&s, 5))
	require.Equal(t, int32(5), s.Fd)
	require.Equal(t, sys.SQEFixedFile, s.Flags)
	require.Equal(t, sys.OpRead, s.Opcode)
}
