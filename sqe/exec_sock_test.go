//go:build linux

package sqe_test

import (
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// zcPair checks the two CQEs of a zero-copy send: the byte count with
// F_MORE, then the F_NOTIF notification.
func zcPair(t *testing.T, r interface{}, cs []sys.CQE, n int) {
	t.Helper()
	require.Len(t, cs, 2)
	require.Equal(t, int32(n), cs[0].Res)
	require.True(t, cqe.More(&cs[0]))
	require.True(t, cqe.Notif(&cs[1]))
	require.False(t, cqe.More(&cs[1]))
}

func recvAll(t *testing.T, fd, n int) []byte {
	t.Helper()
	buf := make([]byte, n)
	got := 0
	for got < n {
		m, err := unix.Read(fd, buf[got:])
		require.NoError(t, err)
		got += m
	}
	return buf
}

// zcRun submits the zero-copy send prepared as user_data ud and returns
// its CQEs: the result, and the F_NOTIF notification when the result has
// F_MORE.
func zcRun(t *testing.T, r *uring.Ring) []sys.CQE {
	t.Helper()
	cs := submitWait(t, r, 1)
	if cqe.More(&cs[0]) {
		cs = append(cs, wait(t, r, 1)...)
	}
	return cs
}

func TestExecZeroCopy(t *testing.T) {
	r := newRing(t)
	needOp(t, sys.OpSendZC) // 6.0
	c, s := tcpPair(t)
	data := []byte("zero-copy payload")

	prep(t, r, 1, func(q *sys.SQE) error { return sqe.SendZC(q, c, data, 0, 0) })
	zcPair(t, r, zcRun(t, r), len(data))
	require.Equal(t, data, recvAll(t, s, len(data)))

	fixed := make([]byte, 4096)
	copy(fixed[64:], data)
	registerBuffers(t, r, fixed)
	prep(t, r, 3, func(q *sys.SQE) error { return sqe.SendZCFixed(q, c, fixed[64:64+len(data)], 0, 0, 0) })
	zcPair(t, r, zcRun(t, r), len(data))
	require.Equal(t, data, recvAll(t, s, len(data)))

	t.Run("ReportUsage", func(t *testing.T) {
		prep(t, r, 1, func(q *sys.SQE) error { return sqe.SendZC(q, c, data, 0, sys.SendZCReportUsage) })
		cs := zcRun(t, r)
		kernelHas(t, cs[0], "IORING_SEND_ZC_REPORT_USAGE", "6.2", unix.EINVAL)
		zcPair(t, r, cs, len(data))
		require.Equal(t, data, recvAll(t, s, len(data)))
	})
	t.Run("SendmsgZC", func(t *testing.T) {
		needOp(t, sys.OpSendmsgZC) // 6.1
		iov, err := sqe.Iovecs(nil, [][]byte{data[:4], data[4:]})
		require.NoError(t, err)
		msg := unix.Msghdr{Iov: &iov[0]}
		msg.SetIovlen(2)
		prep(t, r, 2, func(q *sys.SQE) error { return sqe.SendmsgZC(q, c, &msg, 0) })
		zcPair(t, r, zcRun(t, r), len(data))
		require.Equal(t, data, recvAll(t, s, len(data)))
		runtime.KeepAlive(&msg)

		// With registered buffers (vectored registered buffers: 6.15).
		fiov, err := sqe.Iovecs(nil, [][]byte{fixed[64 : 64+5], fixed[64+5 : 64+len(data)]})
		require.NoError(t, err)
		fmsg := unix.Msghdr{Iov: &fiov[0]}
		fmsg.SetIovlen(2)
		prep(t, r, 4, func(q *sys.SQE) error { return sqe.SendmsgZCFixed(q, c, &fmsg, 0, 0) })
		cs := zcRun(t, r)
		kernelHas(t, cs[0], "registered buffers on IORING_OP_SENDMSG_ZC", "6.15", unix.EINVAL, unix.EOPNOTSUPP)
		zcPair(t, r, cs, len(data))
		require.Equal(t, data, recvAll(t, s, len(data)))
		runtime.KeepAlive(&fmsg)
	})
	runtime.KeepAlive(data)
	runtime.KeepAlive(fixed)
}

func TestExecRecvMultishotAndBundles(t *testing.T) {
	r := newRing(t)
	testutil.Require(t, uring.CheckCapability(uring.CapMultishotRecv)) // 6.0
	a, b := socketpair(t, unix.SOCK_STREAM)
	mem := make([]byte, 4*64)
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.ProvideBuffers(s, mem, 64, 4, 1, 0) }))
	prep(t, r, 7, func(s *sys.SQE) error { return sqe.RecvMultishot(s, b, 0, 1) })
	_, err := r.Submit()
	require.NoError(t, err)
	for _, w := range []string{"alpha", "beta"} {
		_, err := unix.Write(a, []byte(w))
		require.NoError(t, err)
		c := wait(t, r, 1)[0]
		require.Equal(t, int32(len(w)), c.Res)
		require.True(t, cqe.More(&c))
		bid, ok := cqe.Buffer(&c)
		require.True(t, ok)
		require.Equal(t, w, string(mem[int(bid)*64:int(bid)*64+len(w)]))
	}
	prep(t, r, 8, func(s *sys.SQE) error { return sqe.Cancel(s, 7, 0) })
	cs := byUD(submitWait(t, r, 2))
	require.Equal(t, unix.ECANCELED, errno(cs[7]))

	t.Run("Bundles", func(t *testing.T) {
		testutil.Require(t, uring.CheckCapability(uring.CapRecvSendBundle)) // 6.10
		bundles(t, r, a, b)
	})
	runtime.KeepAlive(mem)
}

// bundles receives and sends bundles between the stream pair a, b
// (buffers from provided-buffer rings).
func bundles(t *testing.T, r *uring.Ring, a, b int) {
	// Bundles need a provided-buffer ring.
	br, err := reg.RegisterBufRing(r, reg.BufRingConfig{Group: 2, Entries: 8})
	require.NoError(t, err)
	defer br.Unregister()
	bufs := make([][]byte, 8)
	for i := range bufs {
		bufs[i] = make([]byte, 4)
		require.NoError(t, br.Add(bufs[i], uint16(i), i))
	}
	br.Advance(8)
	_, err = unix.Write(a, []byte("0123456789"))
	require.NoError(t, err)
	c := run(t, r, func(s *sys.SQE) error { return sqe.RecvBundle(s, b, 0, 2, false) })
	require.GreaterOrEqual(t, c.Res, int32(4), "errno %v", errno(c))
	// Before 6.15 ("io_uring/net: improve recv bundles") a single-shot
	// bundle's first receive fills one buffer and leaves the rest in the
	// socket; since, one CQE spans every buffer the data needs.
	if spans, err := uring.KernelAtLeast("6.15"); err == nil && spans {
		require.Greater(t, c.Res, int32(4), "one CQE spanning more than one buffer")
	}
	bid, ok := cqe.Buffer(&c)
	require.True(t, ok)
	require.Equal(t, uint16(0), bid, "the CQE names the first buffer")
	joined := string(bufs[0]) + string(bufs[1]) + string(bufs[2])
	require.Equal(t, "0123456789"[:c.Res], joined[:c.Res])
	rest := recvAll(t, b, 10-int(c.Res))
	require.Equal(t, "0123456789"[c.Res:], string(rest))

	// SendBundle sends the buffers queued in a ring.
	sr, err := reg.RegisterBufRing(r, reg.BufRingConfig{Group: 3, Entries: 4})
	require.NoError(t, err)
	defer sr.Unregister()
	out := [][]byte{[]byte("send "), []byte("bundle")}
	require.NoError(t, sr.Add(out[0], 0, 0))
	require.NoError(t, sr.Add(out[1], 1, 1))
	sr.Advance(2)
	require.Equal(t, 11, runOK(t, r, func(s *sys.SQE) error { return sqe.SendBundle(s, a, 0, 0, 3) }))
	require.Equal(t, "send bundle", string(recvAll(t, b, 11)))
	runtime.KeepAlive(bufs)
	runtime.KeepAlive(out)
}

func TestExecSockCmd(t *testing.T) {
	r := newRing(t)
	rx, _ := udpSocket(t)
	tx, _ := udpSocket(t)
	c := run(t, r, func(s *sys.SQE) error { return sqe.SockInq(s, rx) })
	if probe := uring.CheckCapability(uring.CapSocketCmd); probe != nil { // 6.7
		// URING_CMD on a socket: EOPNOTSUPP; no URING_CMD (before 5.19): EINVAL.
		require.Contains(t, []unix.Errno{unix.EOPNOTSUPP, unix.EINVAL}, errno(c))
		testutil.Require(t, probe)
	}
	require.Equal(t, int32(0), c.Res, "errno %v", errno(c))
	require.NoError(t, unix.Sendto(tx, []byte("12345"), 0, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}, Port: localPort(t, rx)}))
	require.Equal(t, 5, runOK(t, r, func(s *sys.SQE) error { return sqe.SockInq(s, rx) }), "next datagram size")
	require.Equal(t, 5, runOK(t, r, func(s *sys.SQE) error { return sqe.UringCmd(s, rx, sys.SocketUringOpSIOCINQ, nil) }))
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.SockOutq(s, tx) }))

	val := make([]byte, 4)
	binary.NativeEndian.PutUint32(val, 1)
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Setsockopt(s, rx, unix.SOL_SOCKET, unix.SO_BROADCAST, val) }))
	got := make([]byte, 4)
	require.Equal(t, 4, runOK(t, r, func(s *sys.SQE) error { return sqe.Getsockopt(s, rx, unix.SOL_SOCKET, unix.SO_BROADCAST, got) }))
	require.Equal(t, uint32(1), binary.NativeEndian.Uint32(got))
	v, err := unix.GetsockoptInt(rx, unix.SOL_SOCKET, unix.SO_BROADCAST)
	require.NoError(t, err)
	require.Equal(t, 1, v)

	runtime.KeepAlive(val)
	runtime.KeepAlive(got)

	t.Run("RecvZC", func(t *testing.T) {
		// RECV_ZC needs a zero-copy rx queue registered (a NIC with header
		// split); without one the kernel refuses the request.
		needOp(t, sys.OpRecvZC) // 6.15
		c := run(t, r, func(s *sys.SQE) error { return sqe.RecvZC(s, rx, 0, 0, 0) })
		require.Contains(t, []unix.Errno{unix.EINVAL, unix.EOPNOTSUPP}, errno(c))
	})
}

func TestExecPoll(t *testing.T) {
	r := newRing(t)
	pr, pw := pipe(t)
	prep(t, r, 1, func(s *sys.SQE) error { return sqe.PollAdd(s, pr, unix.POLLIN) })
	_, err := r.Submit()
	require.NoError(t, err)
	_, err = unix.Write(pw, []byte("x"))
	require.NoError(t, err)
	c := wait(t, r, 1)[0]
	require.NotZero(t, c.Res&unix.POLLIN)
	require.False(t, cqe.More(&c))
	buf := make([]byte, 8)
	_, _ = unix.Read(pr, buf)

	// Multishot poll for POLLOUT fires at once, and stays armed; update its
	// user_data, then remove it.
	prep(t, r, 2, func(s *sys.SQE) error { return sqe.PollMultishot(s, pw, unix.POLLOUT) })
	c = submitWait(t, r, 1)[0]
	require.Equal(t, uint64(2), c.UserData)
	require.NotZero(t, c.Res&unix.POLLOUT)
	require.True(t, cqe.More(&c))
	prep(t, r, 3, func(s *sys.SQE) error {
		return sqe.PollUpdate(s, 2, 4, unix.POLLIN, sys.PollUpdateUserData|sys.PollUpdateEvents|sys.PollAddMulti)
	})
	cs := byUD(submitWait(t, r, 1))
	require.Equal(t, int32(0), cs[3].Res)
	prep(t, r, 5, func(s *sys.SQE) error { sqe.PollRemove(s, 4); return nil })
	cs = byUD(submitWait(t, r, 2))
	require.Equal(t, int32(0), cs[5].Res)
	require.Equal(t, unix.ECANCELED, errno(cs[4]), "removed poll carries its new user_data")
	c = run(t, r, func(s *sys.SQE) error { sqe.PollRemove(s, 4); return nil })
	require.Equal(t, unix.ENOENT, errno(c))
}

func TestExecEpoll(t *testing.T) {
	r := newRing(t)
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	require.NoError(t, err)
	closeLater(t, epfd)
	pr, pw := pipe(t)
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(pr)}
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.EpollCtl(s, epfd, pr, unix.EPOLL_CTL_ADD, &ev) }))
	_, err = unix.Write(pw, []byte("e"))
	require.NoError(t, err)
	t.Run("EpollWait", func(t *testing.T) {
		needOp(t, sys.OpEpollWait) // 6.15
		events := make([]unix.EpollEvent, 4)
		require.Equal(t, 1, runOK(t, r, func(s *sys.SQE) error { return sqe.EpollWait(s, epfd, events, 0) }))
		require.Equal(t, int32(pr), events[0].Fd)
		require.NotZero(t, events[0].Events&unix.EPOLLIN)
	})
	events := make([]unix.EpollEvent, 4)
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.EpollCtl(s, epfd, pr, unix.EPOLL_CTL_DEL, nil) }))
	n, err := unix.EpollWait(epfd, events, 0)
	require.NoError(t, err)
	require.Zero(t, n, "deleted")
	runtime.KeepAlive(&ev)
}

// TestExecGetsockname reads a TCP socket's own and peer address through
// URING_CMD: Linux 6.19 has it; older kernels must refuse it cleanly
// (EOPNOTSUPP, or EINVAL before URING_CMD), which is also how a program
// learns it is missing.
func TestExecGetsockname(t *testing.T) {
	r := newRing(t)
	c, s := tcpPair(t)
	var sa unix.RawSockaddrAny
	salen := uint32(unix.SizeofSockaddrAny)
	res := run(t, r, func(e *sys.SQE) error { return sqe.Getsockname(e, c, &sa, &salen, false) })
	if probe := uring.CheckCapability(uring.CapSocketGetsockname); probe != nil {
		require.Contains(t, []unix.Errno{unix.EOPNOTSUPP, unix.EINVAL}, errno(res), "refused cleanly")
		testutil.Require(t, probe)
	}
	require.Equal(t, int32(0), res.Res, "errno %v", errno(res))
	require.Equal(t, uint32(unix.SizeofSockaddrInet4), salen)
	port := func() int { return int(uint8(sa.Addr.Data[0]))<<8 | int(uint8(sa.Addr.Data[1])) }
	require.Equal(t, uint16(unix.AF_INET), sa.Addr.Family)
	require.Equal(t, localPort(t, c), port())

	salen = uint32(unix.SizeofSockaddrAny)
	require.Equal(t, 0, runOK(t, r, func(e *sys.SQE) error { return sqe.Getsockname(e, c, &sa, &salen, true) }))
	require.Equal(t, localPort(t, s), port(), "the peer of the client is the server side")
	runtime.KeepAlive(&sa)
	runtime.KeepAlive(&salen)
}
