//go:build linux

package sqe_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// The SQEs liburing's helpers write, field by field, as its header
// (src/include/liburing.h) writes them: io_uring_prep_rw sets opcode, fd,
// off, addr and len on a zeroed SQE; the URING_CMD helpers set cmd_op
// (the low half of off) and zero addr and len; the rest is per helper.
// The builders must write the same bytes.

// lPrepRW is io_uring_prep_rw on a zeroed SQE.
func lPrepRW(op sys.Op, fd int32, addr uint64, n uint32, off uint64) sys.SQE {
	return sys.SQE{Opcode: op, Fd: fd, Off: off, Addr: addr, Len: n}
}

// lUringCmd is __io_uring_prep_uring_cmd(sqe, op, cmd_op, fd).
func lUringCmd(op sys.Op, cmdOp uint32, fd int32) sys.SQE {
	return sys.SQE{Opcode: op, Fd: fd, Off: uint64(cmdOp)}
}

func TestLiburingEncodings(t *testing.T) {
	var sa4 unix.RawSockaddrInet4
	var sa6 unix.RawSockaddrInet6
	buf := make([]byte, 64)
	const gib4 = 4<<30 + 8192
	mem := make([]byte, 8192)

	cases := []golden{
		{"CmdDiscard", func(s *sys.SQE) error { return sqe.CmdDiscard(s, 5, 1<<20, 3<<20) }, func() sys.SQE {
			s := lUringCmd(sys.OpUringCmd, sys.BlockURingCmdDiscard, 5) // io_uring_prep_cmd_discard
			s.Addr = 1 << 20                                            // sqe->addr = offset
			s.Addr3 = 3 << 20                                           // sqe->addr3 = nbytes
			return s
		}()},
		{"CmdZoneResetAll", func(s *sys.SQE) error { return sqe.CmdZoneResetAll(s, 6) },
			lUringCmd(sys.OpUringCmd, sys.BlockURingCmdZoneResetAll, 6)},
		{"Fadvise64", func(s *sys.SQE) error { return sqe.Fadvise64(s, 3, 4096, gib4, unix.FADV_DONTNEED) }, func() sys.SQE {
			s := lPrepRW(sys.OpFadvise, 3, 0, 0, 4096) // io_uring_prep_fadvise64
			s.Addr = gib4                              // sqe->addr = len
			s.OpFlags = unix.FADV_DONTNEED             // fadvise_advice
			return s
		}()},
		{"Madvise64", func(s *sys.SQE) error { return sqe.Madvise64(s, mem, unix.MADV_DONTNEED) }, func() sys.SQE {
			s := lPrepRW(sys.OpMadvise, -1, a(mem), 0, uint64(len(mem))) // io_uring_prep_madvise64: length in off
			s.OpFlags = unix.MADV_DONTNEED
			return s
		}()},
		{"SendSetAddr", func(s *sys.SQE) error {
			if err := sqe.Send(s, 7, buf, unix.MSG_DONTWAIT); err != nil {
				return err
			}
			return sqe.SendSetAddr(s, &sa4)
		}, func() sys.SQE {
			s := lPrepRW(sys.OpSend, 7, a(buf), uint32(len(buf)), 0) // io_uring_prep_send
			s.OpFlags = unix.MSG_DONTWAIT
			s.Off = p(&sa4)  // io_uring_prep_send_set_addr: addr2
			s.FileIndex = 16 // addr_len (the low half of the word)
			return s
		}()},
		{"SendZCTo", func(s *sys.SQE) error { return sqe.SendZCTo(s, 8, buf, 0, sys.RecvsendPollFirst, &sa6) }, func() sys.SQE {
			s := lPrepRW(sys.OpSendZC, 8, a(buf), uint32(len(buf)), 0) // io_uring_prep_send_zc
			s.Ioprio = sys.RecvsendPollFirst                           // zc_flags
			s.Off = p(&sa6)                                            // send_set_addr
			s.FileIndex = 28
			return s
		}()},
		{"RW", func(s *sys.SQE) error { return sqe.RW(s, sys.OpRead, 3, buf, 77) },
			lPrepRW(sys.OpRead, 3, a(buf), uint32(len(buf)), 77)}, // io_uring_prep_rw(IORING_OP_READ, sqe, 3, buf, len, 77)
		{"RWNoFile", func(s *sys.SQE) error { return sqe.RW(s, sys.OpNop, -1, nil, 0) },
			lPrepRW(sys.OpNop, -1, 0, 0, 0)},
		{"TxTimestamp", func(s *sys.SQE) error { return sqe.TxTimestamp(s, 9) },
			// io_uring_prep_cmd_sock(sqe, SOCKET_URING_OP_TX_TIMESTAMP, fd, 0, 0, NULL, 0)
			lUringCmd(sys.OpUringCmd, sys.SocketUringOpTXTimestamp, 9)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// A builder writes every field: start from garbage.
			var s sys.SQE
			fill(&s)
			require.NoError(t, c.build(&s))
			require.Equal(t, c.want, s)
		})
	}

	t.Run("Nop128", func(t *testing.T) {
		var s sys.SQE128
		fill(&s.SQE)
		for i := range s.Cmd {
			s.Cmd[i] = 0xa5
		}
		sqe.Nop128(&s)
		// io_uring_prep_nop128: io_uring_prep_rw(IORING_OP_NOP128, sqe, -1, NULL, 0, 0)
		require.Equal(t, sys.SQE128{SQE: lPrepRW(sys.OpNop128, -1, 0, 0, 0)}, s)
	})
	t.Run("UringCmd128", func(t *testing.T) {
		var s sys.SQE128
		require.NoError(t, sqe.UringCmd128(&s, 4, 0x77, nil))
		// io_uring_prep_uring_cmd128 leaves the command area to the caller
		// (zero here, as the ring hands SQEs out).
		require.Equal(t, sys.SQE128{SQE: lUringCmd(sys.OpUringCmd128, 0x77, 4)}, s)
	})
}

// fill writes a pattern over every byte of s.
func fill(s *sys.SQE) {
	var b [64]byte
	for i := range b {
		b[i] = 0x5a
	}
	*s = sys.SQE{Opcode: 0x5a, Flags: 0x5a, Ioprio: 0x5a5a, Fd: 0x5a5a, Off: 0x5a5a, Addr: 0x5a, Len: 0x5a,
		OpFlags: 0x5a, UserData: 0x5a, BufIndex: 0x5a, Personality: 0x5a, FileIndex: 0x5a, Addr3: 0x5a, Pad2: 0x5a}
}

func TestLiburingArgErrors(t *testing.T) {
	var sa unix.RawSockaddrInet4
	for _, c := range []invalid{
		{func(s *sys.SQE) error { return sqe.CmdDiscard(s, -1, 0, 512) }, "sqe: CmdDiscard: fd = -1 is negative"},
		{func(s *sys.SQE) error { return sqe.CmdDiscard(s, 3, -512, 512) }, "sqe: CmdDiscard: off = -512 is negative"},
		{func(s *sys.SQE) error { return sqe.CmdDiscard(s, 3, 0, 0) }, "sqe: CmdDiscard: n = 0 is not positive"},
		{func(s *sys.SQE) error { return sqe.CmdDiscard(s, 3, 100, 512) }, "sqe: CmdDiscard: off = 100 is not a multiple of 512 (the logical block size at least)"},
		{func(s *sys.SQE) error { return sqe.CmdDiscard(s, 3, 0, 1000) }, "sqe: CmdDiscard: n = 1000 is not a multiple of 512 (the logical block size at least)"},
		{func(s *sys.SQE) error { return sqe.CmdDiscard(s, 3, 1<<62, 1<<62) }, "sqe: CmdDiscard: n = 4611686018427387904: off+n overflows"},
		{func(s *sys.SQE) error { return sqe.CmdZoneResetAll(s, -2) }, "sqe: CmdZoneResetAll: fd = -2 is negative"},
		{func(s *sys.SQE) error { return sqe.Fadvise64(s, 3, 0, -1, 0) }, "sqe: Fadvise64: n = -1 is negative"},
		{func(s *sys.SQE) error { return sqe.Fadvise64(s, 3, -1, 1, 0) }, "sqe: Fadvise64: off = -1 is negative"},
		{func(s *sys.SQE) error { return sqe.SendSetAddr[unix.RawSockaddrInet4](s, nil) }, "sqe: SendSetAddr: sa is nil"},
		{func(s *sys.SQE) error { sqe.Nop(s); return sqe.SendSetAddr(s, &sa) }, "sqe: SendSetAddr: s holds NOP: only SEND and SEND_ZC take a destination"},
		{func(s *sys.SQE) error { return sqe.SendZCTo[unix.RawSockaddrInet4](s, 3, gBuf, 0, 0, nil) }, "sqe: SendZCTo: sa is nil"},
		{func(s *sys.SQE) error { return sqe.SendZCTo(s, 3, gBuf, 0, sys.RecvsendFixedBuf, &sa) }, "sqe: SendZCTo: zc has unknown bits 0x4"},
		{func(s *sys.SQE) error { return sqe.TxTimestamp(s, -1) }, "sqe: TxTimestamp: fd = -1 is negative"},
		{func(s *sys.SQE) error { return sqe.RW(s, sys.OpRead, -2, nil, 0) }, "sqe: RW: fd = -2 is neither -1 nor a valid fd"},
		{func(s *sys.SQE) error { return sqe.RW(s, sys.OpRead, 3, nil, -2) }, "sqe: RW: off = -2 is below -1"},
	} {
		var s sys.SQE
		err := c.build(&s)
		require.EqualError(t, err, c.msg)
		var ae *sqe.ArgError
		require.True(t, errors.As(err, &ae))
		require.ErrorIs(t, err, unix.EINVAL)
		if s.Opcode != sys.OpNop {
			require.Equal(t, sys.SQE{}, s, "%s: the SQE was written", c.msg)
		}
	}
	var s128 sys.SQE128
	require.EqualError(t, sqe.UringCmd128(&s128, -1, 0, nil), "sqe: UringCmd128: fd = -1 is negative")
	require.Equal(t, sys.SQE128{}, s128)
}

// diskDir is a directory on a filesystem with a page cache the kernel
// can drop pages of (t.TempDir() unless it is tmpfs or ramfs, where
// fadvise does nothing), or "" when there is none.
func diskDir(t *testing.T) string {
	t.Helper()
	for _, d := range []string{t.TempDir(), "/var/tmp", "/tmp"} {
		var st unix.Statfs_t
		if unix.Statfs(d, &st) != nil || st.Type == unix.TMPFS_MAGIC || st.Type == unix.RAMFS_MAGIC {
			continue
		}
		if d != t.TempDir() {
			dir, err := os.MkdirTemp(d, "uring-sqe-")
			if err != nil {
				continue
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			d = dir
		}
		return d
	}
	return ""
}

// resident reports whether the page of f at off is in the page cache:
// mincore(2) on a mapping of it, which (unlike a RWF_NOWAIT read, whose
// miss starts readahead) leaves the cache as it was.
func resident(t *testing.T, f *os.File, off int64) bool {
	t.Helper()
	m, err := unix.Mmap(int(f.Fd()), off, 4096, unix.PROT_READ, unix.MAP_SHARED)
	require.NoError(t, err)
	defer unix.Munmap(m)
	vec := make([]byte, 1)
	require.NoError(t, fdio.Mincore(m, vec))
	return vec[0]&1 != 0
}

// TestFadvise64 drops a page that lies past 4 GiB from the page cache with
// one FADV_DONTNEED whose length only 64 bits can hold: a length cut to 32
// bits would cover the first 8 KiB and leave the page.
func TestFadvise64(t *testing.T) {
	r := newRing(t)
	const far = 4<<30 + 4096 // the page past 4 GiB
	dir := diskDir(t)
	name := filepath.Join(t.TempDir(), "sparse")
	if dir != "" {
		name = filepath.Join(dir, "sparse")
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	require.NoError(t, err)
	defer f.Close()
	page := bytes.Repeat([]byte{0xab}, 4096)
	_, err = f.WriteAt(page, far)
	require.NoError(t, err)
	require.NoError(t, f.Sync()) // DONTNEED drops clean pages only

	c := run(t, r, func(s *sys.SQE) error { return sqe.Fadvise64(s, int(f.Fd()), 0, far+4096, unix.FADV_DONTNEED) })
	kernelHas(t, c, "64-bit fadvise length (io_uring_prep_fadvise64)", "6.11", unix.EINVAL)
	require.Equal(t, int32(0), c.Res, "errno %v", errno(c))
	if dir == "" {
		t.Logf("no disk filesystem here (only tmpfs/ramfs, where fadvise does nothing): the kernel's answer 0 is all there is to check")
		return
	}
	require.False(t, resident(t, f, far), "the page at 4 GiB + 4 KiB is still cached after FADV_DONTNEED over [0, 4 GiB + 8 KiB)")

	// The control: a length that stops short of the page leaves it.
	_, err = f.ReadAt(make([]byte, 4096), far)
	require.NoError(t, err)
	require.True(t, resident(t, f, far))
	c = run(t, r, func(s *sys.SQE) error { return sqe.Fadvise64(s, int(f.Fd()), 0, far, unix.FADV_DONTNEED) })
	require.Equal(t, int32(0), c.Res)
	require.True(t, resident(t, f, far), "FADV_DONTNEED over [0, 4 GiB + 4 KiB) dropped the page after it")
}

// TestMadvise64 zaps a page past 4 GiB of an anonymous mapping with one
// MADV_DONTNEED over the whole mapping: a length cut to 32 bits would
// cover 8 KiB only.
func TestMadvise64(t *testing.T) {
	r := newRing(t)
	const size = 4<<30 + 8192
	const far = 4<<30 + 4096
	mem, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	require.NoError(t, err)
	defer unix.Munmap(mem)
	mem[far] = 7
	mem[0] = 9

	c := run(t, r, func(s *sys.SQE) error { return sqe.Madvise64(s, mem[:far], unix.MADV_DONTNEED) })
	kernelHas(t, c, "64-bit madvise length (io_uring_prep_madvise64)", "6.11", unix.EINVAL)
	require.Equal(t, int32(0), c.Res, "errno %v", errno(c))
	require.Equal(t, byte(0), mem[0], "the first page survived MADV_DONTNEED")
	require.Equal(t, byte(7), mem[far], "MADV_DONTNEED over [0, 4 GiB + 4 KiB) zapped the page after it")

	c = run(t, r, func(s *sys.SQE) error { return sqe.Madvise64(s, mem, unix.MADV_DONTNEED) })
	require.Equal(t, int32(0), c.Res)
	require.Equal(t, byte(0), mem[far], "the page at 4 GiB + 4 KiB survived MADV_DONTNEED over the whole mapping")

	require.Equal(t, int32(0), run(t, r, func(s *sys.SQE) error { return sqe.Madvise64(s, nil, unix.MADV_DONTNEED) }).Res)
}

// TestSendToAddress sends datagrams from an unconnected UDP socket to an
// address given in the SQE: SEND with SendSetAddr, and SEND_ZC both ways.
func TestSendToAddress(t *testing.T) {
	r := newRing(t)
	rx, to := udpSocket(t)
	tx, _ := udpSocket(t)
	needOp(t, sys.OpSendZC)

	got := func() []byte {
		t.Helper()
		b := make([]byte, 64)
		n, _, err := unix.Recvfrom(rx, b, 0)
		require.NoError(t, err)
		return b[:n]
	}

	msg := []byte("set-addr")
	require.Equal(t, len(msg), runOK(t, r, func(s *sys.SQE) error {
		if err := sqe.Send(s, tx, msg, 0); err != nil {
			return err
		}
		return sqe.SendSetAddr(s, &to)
	}))
	require.Equal(t, msg, got())

	zc := func(name string, build func(s *sys.SQE, data []byte) error) {
		t.Run(name, func(t *testing.T) {
			data := []byte("zero-copy " + name)
			prep(t, r, 5, func(s *sys.SQE) error { return build(s, data) })
			cs := submitWait(t, r, 2)
			require.Equal(t, int32(len(data)), cs[0].Res, "errno %v", errno(cs[0]))
			require.True(t, cqe.More(&cs[0]))
			require.True(t, cqe.Notif(&cs[1]), "the second CQE is the notification: %+v", cs[1])
			require.Equal(t, data, got())
		})
	}
	zc("SendZCTo", func(s *sys.SQE, data []byte) error { return sqe.SendZCTo(s, tx, data, 0, 0, &to) })
	zc("SendZC+SendSetAddr", func(s *sys.SQE, data []byte) error {
		if err := sqe.SendZC(s, tx, data, 0, 0); err != nil {
			return err
		}
		return sqe.SendSetAddr(s, &to)
	})

	// Without an address the unconnected socket has nowhere to send.
	c := run(t, r, func(s *sys.SQE) error { return sqe.Send(s, tx, msg, 0) })
	require.Equal(t, unix.EDESTADDRREQ, errno(c))
}

// TestRW reads a file through the generic builder.
func TestRW(t *testing.T) {
	r := newRing(t)
	f, _ := tempFile(t, []byte("generic read"))
	buf := make([]byte, 7)
	require.Equal(t, 4, runOK(t, r, func(s *sys.SQE) error { return sqe.RW(s, sys.OpRead, int(f.Fd()), buf, 8) }))
	require.Equal(t, []byte("read"), buf[:4])
}

// TestTxTimestamp asks a UDP socket for software transmit timestamps,
// sends three datagrams and collects the three timestamps with one
// multishot TX_TIMESTAMP request on a CQE32 ring.
func TestTxTimestamp(t *testing.T) {
	r := newRing(t, uring.WithCQE32())
	rx, to := udpSocket(t)
	tx, _ := udpSocket(t)
	opts := unix.SOF_TIMESTAMPING_TX_SOFTWARE | unix.SOF_TIMESTAMPING_SOFTWARE |
		unix.SOF_TIMESTAMPING_OPT_ID | unix.SOF_TIMESTAMPING_OPT_TSONLY
	require.NoError(t, unix.SetsockoptInt(tx, unix.SOL_SOCKET, unix.SO_TIMESTAMPING_NEW, opts))
	before := time.Now()
	for i := 0; i < 3; i++ {
		require.NoError(t, unix.Sendto(tx, []byte{byte(i)}, 0, &unix.SockaddrInet4{Addr: to.Addr, Port: int(to.Port>>8 | to.Port<<8)}))
		_, _, err := unix.Recvfrom(rx, make([]byte, 4), 0)
		require.NoError(t, err)
	}

	prep(t, r, 11, func(s *sys.SQE) error { return sqe.TxTimestamp(s, tx) })
	_, err := r.Submit()
	require.NoError(t, err)
	var got []cqe.TxTimestamp
	batch := make([]sys.CQE32, 8)
	deadline := time.Now().Add(5 * time.Second)
	for len(got) < 3 {
		require.True(t, time.Now().Before(deadline), "timestamps so far: %+v", got)
		_, err := r.WaitCQETimeout(time.Second)
		if errors.Is(err, uring.ErrTimeout) {
			continue
		}
		require.NoError(t, err)
		n := r.Reap32(batch)
		for _, c := range batch[:n] {
			require.Equal(t, uint64(11), c.UserData)
			ts, ok := cqe.TxTimestampOf(&c)
			if !ok {
				kernelHas(t, c.CQE, "socket command SOCKET_URING_OP_TX_TIMESTAMP", "6.16", unix.EOPNOTSUPP)
				t.Fatalf("the request ended: res %d (%v), flags %v", c.Res, errno(c.CQE), c.Flags)
			}
			got = append(got, ts)
		}
	}
	for i, ts := range got {
		require.Equal(t, uint32(i), ts.Key, "OPT_ID counts the datagrams from 0")
		require.Equal(t, uint32(unix.SCM_TSTAMP_SND), ts.Type)
		require.False(t, ts.Hardware)
		require.False(t, ts.Time.Before(before.Add(-time.Second)), "timestamp %v is before the sends began (%v)", ts.Time, before)
	}

	// Cancel the armed request: its last CQE has no F_MORE.
	prep(t, r, 12, func(s *sys.SQE) error { return sqe.Cancel(s, 11, 0) })
	_, err = r.Submit()
	require.NoError(t, err)
	seen := map[uint64]sys.CQE32{}
	for len(seen) < 2 {
		_, err := r.WaitCQETimeout(5 * time.Second)
		require.NoError(t, err)
		n := r.Reap32(batch)
		for _, c := range batch[:n] {
			seen[c.UserData] = c
		}
	}
	require.Equal(t, int32(0), seen[12].Res)
	last := seen[11]
	require.Equal(t, unix.ECANCELED, errno(last.CQE))
	_, ok := cqe.TxTimestampOf(&last)
	require.False(t, ok)
}

// TestTxTimestampNeedsCQE32: on a ring of 16-byte CQEs the kernel refuses
// the request (it posts its timestamps in CQE32 extras).
func TestTxTimestampNeedsCQE32(t *testing.T) {
	r := newRing(t)
	tx, _ := udpSocket(t)
	c := run(t, r, func(s *sys.SQE) error { return sqe.TxTimestamp(s, tx) })
	kernelHas(t, c, "socket command SOCKET_URING_OP_TX_TIMESTAMP", "6.16", unix.EOPNOTSUPP)
	require.Equal(t, unix.EINVAL, errno(c))
}

// TestNop128 runs a NOP128 in a 128-byte SQE (Linux 6.19).
func TestNop128(t *testing.T) {
	needOp(t, sys.OpNop128)
	r := newRing(t, uring.WithSQE128())
	s, err := r.GetSQE128()
	require.NoError(t, err)
	sqe.Nop128(s)
	s.UserData = 3
	executed.Store(sys.OpNop128, true)
	c := submitWait(t, r, 1)[0]
	require.Equal(t, uint64(3), c.UserData)
	require.Equal(t, int32(0), c.Res)
}

// TestUringCmd128 asks a socket for its queued bytes through URING_CMD128
// (Linux 6.19) on an SQE128 ring.
func TestUringCmd128Exec(t *testing.T) {
	needOp(t, sys.OpUringCmd128)
	testutil.Require(t, uring.CheckCapability(uring.CapSocketCmd))
	r := newRing(t, uring.WithSQE128())
	rx, to := udpSocket(t)
	tx, _ := udpSocket(t)
	require.NoError(t, unix.Sendto(tx, []byte("12345"), 0, &unix.SockaddrInet4{Addr: to.Addr, Port: int(to.Port>>8 | to.Port<<8)}))
	s, err := r.GetSQE128()
	require.NoError(t, err)
	require.NoError(t, sqe.UringCmd128(s, rx, sys.SocketUringOpSIOCINQ, nil))
	s.UserData = 4
	executed.Store(sys.OpUringCmd128, true)
	c := submitWait(t, r, 1)[0]
	require.Equal(t, int32(5), c.Res, "errno %v", errno(c))
}

// The rest: commands on block devices.

const polledDevEnv = "URING_TEST_POLLED_DEV"

// unknownBlockCmd is a block command number no kernel has.
const unknownBlockCmd = 0x12<<8 | 0xfe

// anyBlockDevice returns a block device to open read-only (for commands
// the kernel refuses before touching anything), or "" when there is none.
func anyBlockDevice(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(polledDevEnv); p != "" {
		return p
	}
	ents, _ := os.ReadDir("/sys/block")
	for _, e := range ents {
		p := "/dev/" + e.Name()
		if st, err := os.Stat(p); err == nil && st.Mode()&os.ModeDevice != 0 && st.Mode()&os.ModeCharDevice == 0 {
			if fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC, 0); err == nil {
				unix.Close(fd)
				return p
			}
		}
	}
	return ""
}

// needBlockCmds runs an unknown block command on a read-only fd of a block
// device: a kernel with block commands (6.12) answers EINVAL, one without
// EOPNOTSUPP (the file has no uring_cmd). It returns the device.
func needBlockCmds(t *testing.T, r *uring.Ring) string {
	t.Helper()
	// Before URING_CMD (5.19) the opcode itself is unknown: EINVAL, which
	// would pass for "an unknown block command" below.
	testutil.Require(t, uring.CheckOp(sys.OpUringCmd))
	dev := anyBlockDevice(t)
	if dev == "" {
		t.Skip("no block device can be opened here")
	}
	fd, err := unix.Open(dev, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	defer unix.Close(fd)
	c := run(t, r, func(s *sys.SQE) error { return sqe.UringCmd(s, fd, unknownBlockCmd, nil) })
	kernelHas(t, c, "commands on block devices (IORING_OP_URING_CMD, BLOCK_URING_CMD_*)", "6.12", unix.EOPNOTSUPP)
	require.Equal(t, unix.EINVAL, errno(c), "an unknown block command on %s", dev)
	return dev
}

// blockDev is a block device the test may overwrite, made or found by
// writableBlockDevice.
type blockDev struct {
	path    string
	discard bool // queue/discard_max_bytes > 0
}

func sysfsQueue(t *testing.T, path, attr string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(path)
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join("/sys/class/block", filepath.Base(real), "queue", attr))
	require.NoError(t, err)
	return string(bytes.TrimSpace(b))
}

// writableBlockDevice returns URING_TEST_POLLED_DEV (kernel-test's scratch
// device, which the tests may overwrite), or else a loop device over a
// sparse file made here (detached at the end of the test), or skips.
func writableBlockDevice(t *testing.T) blockDev {
	t.Helper()
	if p := os.Getenv(polledDevEnv); p != "" {
		return blockDev{path: p, discard: sysfsQueue(t, p, "discard_max_bytes") != "0"}
	}
	if p := loopDevice(t); p != "" {
		return blockDev{path: p, discard: sysfsQueue(t, p, "discard_max_bytes") != "0"}
	}
	t.Skipf("no block device to overwrite: %s is unset and no loop device can be set up here", polledDevEnv)
	return blockDev{}
}

// loopDevice attaches a free loop device to a 64 MiB sparse file (root
// only), or returns "".
func loopDevice(t *testing.T) string {
	t.Helper()
	ctl, err := unix.Open("/dev/loop-control", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Logf("no loop devices: %v", err)
		return ""
	}
	defer unix.Close(ctl)
	dir := diskDir(t)
	if dir == "" {
		dir = t.TempDir()
	}
	back, err := os.Create(filepath.Join(dir, "loop-backing"))
	require.NoError(t, err)
	defer back.Close()
	require.NoError(t, back.Truncate(64<<20))
	for try := 0; try < 5; try++ {
		n, err := unix.IoctlRetInt(ctl, unix.LOOP_CTL_GET_FREE)
		if err != nil {
			t.Logf("LOOP_CTL_GET_FREE: %v", err)
			return ""
		}
		path := "/dev/loop" + strconv.Itoa(n)
		fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Logf("open %s: %v", path, err)
			return ""
		}
		if err := unix.IoctlSetInt(fd, unix.LOOP_SET_FD, int(back.Fd())); err != nil {
			unix.Close(fd)
			if errors.Is(err, unix.EBUSY) {
				continue // another process took it first
			}
			t.Logf("LOOP_SET_FD on %s: %v", path, err)
			return ""
		}
		t.Cleanup(func() {
			_ = unix.IoctlSetInt(fd, unix.LOOP_CLR_FD, 0)
			unix.Close(fd)
		})
		return path
	}
	return ""
}

// TestCmdDiscard writes a pattern to a block device, discards a range in
// its middle and reads the device back (O_DIRECT): the range reads as
// zeros, the rest is intact. The device is URING_TEST_POLLED_DEV when it
// discards, else a null_blk device made through configfs with discard=1
// (memory-backed: a discard frees the memory, which reads as zeros), else a
// loop device over a file (a discard punches a hole). A device without
// discard support answers EOPNOTSUPP (kernel-test's null_blk is loaded
// without discard=1), and any block device does on an IOPOLL ring: block
// devices have no polled commands.
func TestCmdDiscard(t *testing.T) {
	r := newRing(t)
	needBlockCmds(t, r)
	d := writableBlockDevice(t)
	fd, err := unix.Open(d.path, unix.O_RDWR|unix.O_DIRECT|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	defer unix.Close(fd)
	t.Logf("%s: discard %v", d.path, d.discard)

	const hole, holeLen = 1<<20 + 64<<10, 128 << 10
	t.Run("IOPOLL", func(t *testing.T) {
		testutil.Require(t, uring.CheckSetupFlag(sys.SetupIOPoll))
		rp := newRing(t, uring.WithIOPoll())
		c := run(t, rp, func(s *sys.SQE) error { return sqe.CmdDiscard(s, fd, hole, holeLen) })
		require.Equal(t, unix.EOPNOTSUPP, errno(c), "a block command on an IOPOLL ring")
	})
	t.Run("ReadOnly", func(t *testing.T) {
		ro, err := unix.Open(d.path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		require.NoError(t, err)
		defer unix.Close(ro)
		c := run(t, r, func(s *sys.SQE) error { return sqe.CmdDiscard(s, ro, hole, holeLen) })
		if d.discard {
			require.Equal(t, unix.EBADF, errno(c), "a discard through a read-only fd")
		} else {
			require.Equal(t, unix.EOPNOTSUPP, errno(c))
		}
	})
	if !d.discard {
		c := run(t, r, func(s *sys.SQE) error { return sqe.CmdDiscard(s, fd, hole, holeLen) })
		require.Equal(t, unix.EOPNOTSUPP, errno(c), "%s has queue/discard_max_bytes 0", d.path)
		p := nullBlkDiscard(t)
		if p == "" {
			p = loopDevice(t)
		}
		if p == "" {
			t.Logf("no device that discards here: the kernel's EOPNOTSUPP on %s is all there is to check", d.path)
			return
		}
		d = blockDev{path: p, discard: sysfsQueue(t, p, "discard_max_bytes") != "0"}
		require.True(t, d.discard, "%s does not discard", p)
		fd, err = unix.Open(d.path, unix.O_RDWR|unix.O_DIRECT|unix.O_CLOEXEC, 0)
		require.NoError(t, err)
		defer unix.Close(fd)
	}
	discardRange(t, r, d.path, fd, hole, holeLen)
}

// discardRange writes a pattern around [hole, hole+n) of the device fd,
// discards that range and checks it reads as zeros and the rest as written.
func discardRange(t *testing.T, r *uring.Ring, path string, fd int, hole, n int64) {
	t.Helper()
	lbs, err := unix.IoctlGetInt(fd, unix.BLKSSZGET)
	require.NoError(t, err)
	t.Logf("discarding on %s (logical block size %d)", path, lbs)
	base := hole - 64<<10
	size := int(n) + 128<<10
	buf, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	require.NoError(t, err)
	defer unix.Munmap(buf)
	for i := range buf {
		buf[i] = byte(i/512) | 1 // never 0
	}
	_, err = unix.Pwrite(fd, buf, base)
	require.NoError(t, err)

	c := run(t, r, func(s *sys.SQE) error { return sqe.CmdDiscard(s, fd, hole, n) })
	require.Equal(t, int32(0), c.Res, "errno %v", errno(c))

	devSize, err := unix.Seek(fd, 0, 2)
	require.NoError(t, err)
	c = run(t, r, func(s *sys.SQE) error { return sqe.CmdDiscard(s, fd, devSize, 4096) })
	require.Equal(t, unix.EINVAL, errno(c), "a discard past the end of the device")

	got, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	require.NoError(t, err)
	defer unix.Munmap(got)
	_, err = unix.Pread(fd, got, base)
	require.NoError(t, err)
	h := int(hole - base)
	require.Equal(t, buf[:h], got[:h], "the bytes before the discarded range changed")
	require.Equal(t, buf[h+int(n):], got[h+int(n):], "the bytes after the discarded range changed")
	require.Equal(t, make([]byte, n), got[h:h+int(n)], "the discarded range does not read as zeros")
}

// nullBlkDiscard makes a 64 MiB memory-backed null_blk device with discard
// on through configfs (null_blk loaded, root), removed at the end of the
// test, and returns a block device node for it, or "".
func nullBlkDiscard(t *testing.T) string {
	t.Helper()
	const cfg = "/sys/kernel/config"
	if _, err := os.Stat(cfg + "/nullb"); err != nil {
		if err := unix.Mount("none", cfg, "configfs", 0, ""); err != nil && !errors.Is(err, unix.EBUSY) {
			t.Logf("no configfs for null_blk: %v", err)
			return ""
		}
		if _, err := os.Stat(cfg + "/nullb"); err != nil {
			t.Logf("no null_blk in configfs: %v", err)
			return ""
		}
	}
	dir := cfg + "/nullb/uring-sqe-discard"
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Logf("making a null_blk device: %v", err)
		return ""
	}
	t.Cleanup(func() {
		_ = os.WriteFile(dir+"/power", []byte("0"), 0)
		_ = os.Remove(dir)
	})
	for _, kv := range [][2]string{{"size", "64"}, {"blocksize", "512"}, {"memory_backed", "1"}, {"discard", "1"}, {"power", "1"}} {
		if err := os.WriteFile(dir+"/"+kv[0], []byte(kv[1]), 0); err != nil {
			t.Logf("null_blk %s=%s: %v", kv[0], kv[1], err)
			return ""
		}
	}
	idx, err := os.ReadFile(dir + "/index")
	require.NoError(t, err)
	// The disk is nullb<index>, or (newer kernels, seen on 6.12) named
	// after its configfs directory.
	name := "nullb" + string(bytes.TrimSpace(idx))
	dev, err := os.ReadFile("/sys/block/" + name + "/dev")
	if errors.Is(err, os.ErrNotExist) {
		name = filepath.Base(dir)
		dev, err = os.ReadFile("/sys/block/" + name + "/dev")
	}
	require.NoError(t, err, "null_blk %s (index %s) has no /sys/block entry", filepath.Base(dir), bytes.TrimSpace(idx))
	var major, minor uint32
	_, err = fmt.Sscanf(string(dev), "%d:%d", &major, &minor)
	require.NoError(t, err)
	// A node of our own: /dev may not be devtmpfs.
	node := filepath.Join(t.TempDir(), name)
	require.NoError(t, unix.Mknod(node, unix.S_IFBLK|0o600, int(unix.Mkdev(major, minor))))
	return node
}

// TestCmdZoneResetAll: a kernel that has the command (7.3) answers EBADF through a read-only fd and EOPNOTSUPP on a device that is
// not zoned; one that does not, EINVAL (an unknown block command).
func TestCmdZoneResetAll(t *testing.T) {
	r := newRing(t)
	dev := needBlockCmds(t, r)
	ro, err := unix.Open(dev, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	defer unix.Close(ro)
	c := run(t, r, func(s *sys.SQE) error { return sqe.CmdZoneResetAll(s, ro) })
	kernelHas(t, c, "block command BLOCK_URING_CMD_ZONE_RESET_ALL", "7.3", unix.EINVAL)
	require.Equal(t, unix.EBADF, errno(c), "a zone reset through a read-only fd")

	d := writableBlockDevice(t)
	if sysfsQueue(t, d.path, "zoned") != "none" {
		t.Skipf("%s is zoned: this test does not reset someone's zones", d.path)
	}
	fd, err := unix.Open(d.path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	defer unix.Close(fd)
	c = run(t, r, func(s *sys.SQE) error { return sqe.CmdZoneResetAll(s, fd) })
	require.Equal(t, unix.EOPNOTSUPP, errno(c), "a zone reset on a device that is not zoned")
}
