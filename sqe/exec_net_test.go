//go:build linux

package sqe_test

import (
	"runtime"
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func isCloexec(t *testing.T, fd int) bool {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	require.NoError(t, err)
	return flags&unix.FD_CLOEXEC != 0
}

// TestExecSocketLifecycle makes, binds, connects, accepts and shuts
// down TCP sockets through the ring: SOCKET (5.19), BIND and LISTEN (6.11)
// where the kernel has them, the syscalls where it does not; CONNECT and
// ACCEPT (5.5), SEND and RECV (5.6), SHUTDOWN (5.11) always.
func TestExecSocketLifecycle(t *testing.T) {
	r := newRing(t)
	socket := func() int {
		if uring.CheckOp(sys.OpSocket) != nil {
			fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			require.NoError(t, err)
			return fd
		}
		fd := runOK(t, r, func(s *sys.SQE) error { return sqe.Socket(s, unix.AF_INET, unix.SOCK_STREAM, 0) })
		require.True(t, isCloexec(t, fd), "Socket adds SOCK_CLOEXEC")
		return fd
	}
	lfd := socket()
	closeLater(t, lfd)
	addr := unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: [4]byte{127, 0, 0, 1}}
	if uring.CheckOp(sys.OpBind) == nil && uring.CheckOp(sys.OpListen) == nil {
		require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Bind(s, lfd, &addr) }))
		require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Listen(s, lfd, 8) }))
	} else {
		require.NoError(t, unix.Bind(lfd, &unix.SockaddrInet4{Addr: addr.Addr}))
		require.NoError(t, unix.Listen(lfd, 8))
	}
	sa, err := unix.Getsockname(lfd)
	require.NoError(t, err)
	laddr := rawInet4(sa.(*unix.SockaddrInet4))
	require.NotZero(t, laddr.Port)

	cfd := socket()
	closeLater(t, cfd)
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Connect(s, cfd, &laddr) }))

	var peer unix.RawSockaddrAny
	peerLen := uint32(unix.SizeofSockaddrAny)
	afd := runOK(t, r, func(s *sys.SQE) error { return sqe.Accept(s, lfd, &peer, &peerLen, 0) })
	closeLater(t, afd)
	require.True(t, isCloexec(t, afd), "Accept adds SOCK_CLOEXEC")
	require.Equal(t, uint16(unix.AF_INET), peer.Addr.Family)
	require.Equal(t, uint32(unix.SizeofSockaddrInet4), peerLen)

	msg := []byte("ping")
	require.Equal(t, 4, runOK(t, r, func(s *sys.SQE) error { return sqe.Send(s, cfd, msg, 0) }))
	got := make([]byte, 16)
	require.Equal(t, 4, runOK(t, r, func(s *sys.SQE) error { return sqe.Recv(s, afd, got[:4], unix.MSG_WAITALL) }))
	require.Equal(t, msg, got[:4])

	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Shutdown(s, cfd, unix.SHUT_WR) }))
	require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.Recv(s, afd, got, 0) }), "EOF after SHUT_WR")

	registerFiles(t, r, []int32{-1, -1, -1, -1})
	connect := func() {
		c, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		require.NoError(t, err)
		closeLater(t, c)
		require.NoError(t, unix.Connect(c, sa))
	}
	t.Run("AcceptDirect", func(t *testing.T) {
		// Into a slot the kernel picks (IORING_FILE_INDEX_ALLOC).
		c2, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		require.NoError(t, err)
		closeLater(t, c2)
		require.NoError(t, unix.Connect(c2, sa))
		c := run(t, r, func(s *sys.SQE) error { return sqe.AcceptDirect(s, lfd, nil, nil, 0, sqe.AllocSlot) })
		kernelHas(t, c, "IORING_FILE_INDEX_ALLOC", "5.19", unix.EINVAL)
		require.GreaterOrEqual(t, c.Res, int32(0), "errno %v", errno(c))
		slot := int(c.Res)
		require.Less(t, slot, 4)
		require.Equal(t, 2, runOK(t, r, func(s *sys.SQE) error {
			if err := sqe.Send(s, 0, []byte("hi"), 0); err != nil {
				return err
			}
			return sqe.SetSlot(s, sqe.Slot(slot))
		}))
		n, err := unix.Read(c2, got)
		require.NoError(t, err)
		require.Equal(t, "hi", string(got[:n]))
	})
	t.Run("AcceptMultishot", func(t *testing.T) {
		testutil.Require(t, uring.CheckCapability(uring.CapMultishotAccept)) // 5.19
		testutil.Require(t, uring.CheckCapability(uring.CapCancelFlags))     // 5.19
		prep(t, r, 9, func(s *sys.SQE) error { return sqe.AcceptMultishot(s, lfd, nil, nil, 0) })
		prep(t, r, 10, func(s *sys.SQE) error { return sqe.AcceptMultishotDirect(s, lfd, nil, nil, 0) })
		_, err = r.Submit()
		require.NoError(t, err)
		for i := 0; i < 2; i++ {
			connect()
			cq := wait(t, r, 1)[0]
			require.GreaterOrEqual(t, cq.Res, int32(0), "errno %v", errno(cq))
			require.NotZero(t, cq.Flags&sys.CQEFMore)
			if cq.UserData == 9 {
				closeLater(t, int(cq.Res))
				require.True(t, isCloexec(t, int(cq.Res)))
			} else {
				require.Equal(t, uint64(10), cq.UserData)
				require.Less(t, cq.Res, int32(4), "a slot")
			}
		}
		// Cancel both multishots; each ends without F_MORE.
		prep(t, r, 11, func(s *sys.SQE) error { return sqe.CancelFd(s, lfd, sys.AsyncCancelAll) })
		cs := byUD(submitWait(t, r, 3))
		require.Equal(t, int32(2), cs[11].Res, "two requests cancelled")
		for _, ud := range []uint64{9, 10} {
			require.Equal(t, unix.ECANCELED, errno(cs[ud]))
			require.Zero(t, cs[ud].Flags&sys.CQEFMore)
		}
	})
	t.Run("SocketDirect", func(t *testing.T) {
		needOp(t, sys.OpSocket) // 5.19, as IORING_FILE_INDEX_ALLOC
		slot := runOK(t, r, func(s *sys.SQE) error { return sqe.SocketDirect(s, unix.AF_INET, unix.SOCK_DGRAM, 0, sqe.AllocSlot) })
		require.Less(t, slot, 4)
	})
	runtime.KeepAlive(&addr)
	runtime.KeepAlive(&laddr)
	runtime.KeepAlive(&peer)
}

// inet4Bytes is a struct sockaddr_in for 127.0.0.1:port, as bytes.
func inet4Bytes(port int) []byte {
	return []byte{unix.AF_INET, 0, byte(port >> 8), byte(port), 127, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}
}

// portOf reads the port of a struct sockaddr_in held in b.
func portOf(b []byte) int { return int(b[2])<<8 | int(b[3]) }

func localPort(t *testing.T, fd int) int {
	sa, err := unix.Getsockname(fd)
	require.NoError(t, err)
	return sa.(*unix.SockaddrInet4).Port
}

func TestExecMsg(t *testing.T) {
	r := newRing(t)
	rx, rxAddr := udpSocket(t)
	tx, _ := udpSocket(t)
	rxPort, txPort := localPort(t, rx), localPort(t, tx)
	buf := make([]byte, 32)

	t.Run("SendTo", func(t *testing.T) {
		// A destination address on IORING_OP_SEND: 6.1.
		c := run(t, r, func(s *sys.SQE) error { return sqe.SendTo(s, tx, []byte("dgram"), 0, &rxAddr) })
		kernelHas(t, c, "a destination address on IORING_OP_SEND (sendto)", "6.1", unix.EINVAL)
		require.Equal(t, int32(5), c.Res, "errno %v", errno(c))
		n, _, err := unix.Recvfrom(rx, buf, 0)
		require.NoError(t, err)
		require.Equal(t, "dgram", string(buf[:n]))
	})

	// Recvmsg (5.3) with a name buffer.
	require.NoError(t, unix.Sendto(tx, []byte("dgram"), 0, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}, Port: rxPort}))
	iov, err := sqe.Iovecs(nil, [][]byte{buf})
	require.NoError(t, err)
	nameBuf := make([]byte, unix.SizeofSockaddrInet4)
	msg := unix.Msghdr{Name: &nameBuf[0], Namelen: uint32(len(nameBuf)), Iov: &iov[0]}
	msg.SetIovlen(1)
	require.Equal(t, 5, runOK(t, r, func(s *sys.SQE) error { return sqe.Recvmsg(s, rx, &msg, 0) }))
	require.Equal(t, "dgram", string(buf[:5]))
	require.Equal(t, txPort, portOf(nameBuf))

	// Sendmsg (5.3) with a destination.
	out := []byte("via sendmsg")
	oiov, err := sqe.Iovecs(nil, [][]byte{out})
	require.NoError(t, err)
	dst := inet4Bytes(rxPort)
	smsg := unix.Msghdr{Iov: &oiov[0], Name: &dst[0], Namelen: uint32(len(dst))}
	smsg.SetIovlen(1)
	require.Equal(t, len(out), runOK(t, r, func(s *sys.SQE) error { return sqe.Sendmsg(s, tx, &smsg, 0) }))
	n, _, err := unix.Recvfrom(rx, buf, 0)
	require.NoError(t, err)
	require.Equal(t, out, buf[:n])

	t.Run("RecvmsgMultishot", func(t *testing.T) {
		testutil.Require(t, uring.CheckCapability(uring.CapMultishotRecv)) // 6.0
		// Into provided buffers, parsed with cqe.ParseRecvmsg.
		mem := make([]byte, 4*128)
		require.Equal(t, 0, runOK(t, r, func(s *sys.SQE) error { return sqe.ProvideBuffers(s, mem, 128, 4, 3, 0) }))
		hdr := unix.Msghdr{Namelen: unix.SizeofSockaddrInet4}
		prep(t, r, 20, func(s *sys.SQE) error { return sqe.RecvmsgMultishot(s, rx, &hdr, 0, 3) })
		_, err = r.Submit()
		require.NoError(t, err)
		for _, word := range []string{"first", "second"} {
			require.NoError(t, unix.Sendto(tx, []byte(word), 0, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}, Port: rxPort}))
			c := wait(t, r, 1)[0]
			require.Equal(t, uint64(20), c.UserData)
			require.GreaterOrEqual(t, c.Res, int32(0), "errno %v", errno(c))
			require.True(t, cqe.More(&c))
			bid, ok := cqe.Buffer(&c)
			require.True(t, ok)
			out, err := cqe.ParseRecvmsg(mem[int(bid)*128:int(bid)*128+int(c.Res)], &hdr)
			require.NoError(t, err)
			require.Equal(t, word, string(out.Payload))
			require.False(t, out.PayloadTruncated())
			require.False(t, out.NameTruncated())
			require.Equal(t, txPort, portOf(out.Name))
			require.Equal(t, []byte{127, 0, 0, 1}, out.Name[4:8])
		}
		prep(t, r, 21, func(s *sys.SQE) error { return sqe.Cancel(s, 20, 0) })
		cs := byUD(submitWait(t, r, 2))
		require.Equal(t, int32(0), cs[21].Res)
		require.Equal(t, unix.ECANCELED, errno(cs[20]))
		runtime.KeepAlive(&hdr)
		runtime.KeepAlive(mem)
	})
	runtime.KeepAlive(&msg)
	runtime.KeepAlive(&smsg)
	runtime.KeepAlive(nameBuf)
	runtime.KeepAlive(dst)
	runtime.KeepAlive(&rxAddr)
}
