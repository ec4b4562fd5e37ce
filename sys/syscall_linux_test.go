//go:build linux

package sys

import (
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// requireErrno checks that err is *os.SyscallError{Syscall: call} wrapping errno.
func requireErrno(t *testing.T, err error, call string, errno unix.Errno) {
	t.Helper()
	var se *os.SyscallError
	require.ErrorAs(t, err, &se)
	require.Equal(t, call, se.Syscall)
	require.ErrorIs(t, err, errno)
}

// runningAtLeast reports whether the running kernel is release rel or newer.
func runningAtLeast(t *testing.T, rel string) bool {
	t.Helper()
	var u unix.Utsname
	require.NoError(t, unix.Uname(&u))
	r, err := kernelRelease(unix.ByteSliceToString(u.Release[:]))
	require.NoError(t, err)
	return atLeast(r, rel)
}

func TestSetupRejectsBadParams(t *testing.T) {
	for _, c := range []struct {
		name    string
		entries uint32
		p       Params
		errno   unix.Errno
	}{
		{"zero entries", 0, Params{}, unix.EINVAL},
		{"too many entries without CLAMP", 1 << 16, Params{}, unix.EINVAL},
		{"reserved word set", 8, Params{Resv: [3]uint32{0, 1, 0}}, unix.EINVAL},
		{"unknown setup flag", 8, Params{Flags: 1 << 31}, unix.EINVAL},
		{"CQSIZE with cq_entries 0", 8, Params{Flags: SetupCQSize}, unix.EINVAL},
		{"CQSIZE smaller than SQ", 8, Params{Flags: SetupCQSize, CQEntries: 4}, unix.EINVAL},
		{"SQ_AFF without SQPOLL", 8, Params{Flags: SetupSQAff}, unix.EINVAL},
		{"DEFER_TASKRUN without SINGLE_ISSUER", 8, Params{Flags: SetupDeferTaskrun}, unix.EINVAL},
		{"TASKRUN_FLAG without COOP_TASKRUN", 8, Params{Flags: SetupTaskrunFlag}, unix.EINVAL},
		{"NO_MMAP without memory", 8, Params{Flags: SetupNoMmap}, unix.EFAULT},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.p
			fd, err := Setup(c.entries, &p)
			if err == nil {
				Close(fd)
			}
			require.Equal(t, -1, fd)
			want := c.errno
			if p.Flags&SetupNoMmap != 0 && !runningAtLeast(t, "6.5") {
				want = unix.EINVAL // NO_MMAP is 6.5's: before, an unknown flag
			}
			requireErrno(t, err, "io_uring_setup", want)
		})
	}
}

func TestSetupProbeClose(t *testing.T) {
	var p Params
	fd, err := Setup(4, &p)
	require.NoError(t, err)
	require.GreaterOrEqual(t, fd, 0)
	require.Equal(t, uint32(4), p.SQEntries)
	require.Equal(t, uint32(8), p.CQEntries, "CQ is twice the SQ by default")
	require.NotZero(t, p.Features&FeatSingleMmap)
	require.NotZero(t, p.SQOff.Array, "offsets filled in")

	var probe Probe
	_, err = Register(fd, RegisterProbe, &probe, uint32(len(probe.Ops)))
	require.NoError(t, err)
	if runningAtLeast(t, "6.16") {
		require.GreaterOrEqual(t, probe.LastOp, OpPipe, "6.16 has every opcode through PIPE")
	} else {
		require.GreaterOrEqual(t, probe.LastOp, OpTee, "every kernel from 5.10 has TEE")
	}
	require.Equal(t, OpRead, probe.Ops[OpRead].Op)
	require.Equal(t, ProbeOpSupported, probe.Ops[OpRead].Flags&ProbeOpSupported)

	ring, err := Mmap(fd, OffSQRing, int(p.SQOff.Array+p.SQEntries*4))
	require.NoError(t, err)
	require.Equal(t, p.SQEntries, *Uint32At(ring, p.SQOff.RingEntries))
	require.Equal(t, p.SQEntries-1, *Uint32At(ring, p.SQOff.RingMask))
	require.NoError(t, Munmap(ring))

	require.NoError(t, Close(fd))
	requireErrno(t, Close(fd), "close", unix.EBADF)
}

func TestEnterAndRegisterErrors(t *testing.T) {
	_, err := Enter(-1, 0, 0, 0)
	requireErrno(t, err, "io_uring_enter", unix.EBADF)
	_, err = EnterSubmit(-1, 1, 0)
	requireErrno(t, err, "io_uring_enter", unix.EBADF)
	_, err = EnterArg(-1, 0, 1, EnterGetEvents, &GeteventsArg{})
	requireErrno(t, err, "io_uring_enter", unix.EBADF)
	// fd -1 is the ring-less form, for a few opcodes only (SEND_MSG_RING, QUERY).
	_, err = Register[Probe](-1, RegisterProbe, nil, 0)
	if runningAtLeast(t, "6.13") {
		requireErrno(t, err, "io_uring_register", unix.EINVAL)
	} else {
		requireErrno(t, err, "io_uring_register", unix.EBADF) // no ring-less form before 6.13
	}
	_, err = Register[Probe](1<<20, RegisterProbe, nil, 0)
	requireErrno(t, err, "io_uring_register", unix.EBADF)

	// An fd that is not a ring.
	var pfd [2]int
	require.NoError(t, unix.Pipe2(pfd[:], unix.O_CLOEXEC))
	defer unix.Close(pfd[0])
	defer unix.Close(pfd[1])
	_, err = Enter(pfd[0], 0, 0, 0)
	requireErrno(t, err, "io_uring_enter", unix.EOPNOTSUPP)
	_, err = RegisterSlice(pfd[0], RegisterProbe, []Probe{{}})
	requireErrno(t, err, "io_uring_register", unix.EOPNOTSUPP)
}

func TestMmapAnon(t *testing.T) {
	b, err := MmapAnon(4096, false)
	require.NoError(t, err)
	require.Len(t, b, 4096)
	require.Zero(t, SliceAddr(b)%4096, "page aligned")
	b[4095] = 1
	require.NoError(t, Munmap(b))

	_, err = MmapAnon(0, false)
	requireErrno(t, err, "mmap", unix.EINVAL)
	_, err = MmapAnon(-1, false)
	require.True(t, errors.Is(err, unix.EINVAL))
	require.NoError(t, Munmap(nil))
	require.True(t, Supported)
}

// SendMsgRing answers a nil message with EINVAL naming it, and a bad
// target fd with the kernel's answer (EBADF), or, before 6.13 (no
// ring-less form), its EINVAL/EBADF for fd -1: never a panic.
func TestSendMsgRingBadInput(t *testing.T) {
	err := SendMsgRing(3, nil)
	require.ErrorIs(t, err, unix.EINVAL)
	require.ErrorContains(t, err, "msg is nil")
	msg := SQE{Opcode: OpMsgRing, Addr: MsgData}
	err = SendMsgRing(-1, &msg)
	require.Error(t, err)
	require.True(t, errors.Is(err, unix.EBADF) || errors.Is(err, unix.EINVAL), "got %v", err)
	require.Equal(t, int32(-1), msg.Fd, "the target fd is written into the message")
}
