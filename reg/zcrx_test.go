//go:build linux

package reg_test

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sys"
)

// zcrxRing returns a ring zero-copy receive accepts (SINGLE_ISSUER,
// DEFER_TASKRUN, CQE32), owned by the calling goroutine's locked thread,
// after the probe says the kernel has REGISTER_ZCRX_IFQ.
func zcrxRing(t *testing.T, opts ...uring.Option) *uring.Ring {
	t.Helper()
	testutil.Require(t, uring.CheckRegisterOp(sys.RegisterZcrxIfq))
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	if opts == nil {
		opts = []uring.Option{uring.WithCQE32()}
	}
	return newRing(t, 4, append([]uring.Option{uring.WithSingleIssuer(), uring.WithDeferTaskrun()}, opts...)...)
}

func zcrxCfg(name string, rxq int) reg.ZcrxConfig {
	return reg.ZcrxConfig{Interface: name, RxQueue: rxq, AreaSize: 64 << 10, RefillEntries: 64}
}

// requireZcrxError checks err is the kernel's *Error for REGISTER_ZCRX_IFQ
// with errno en and a hint containing each of parts, and that reg mapped
// nothing that outlives the call.
func requireZcrxError(t *testing.T, q *reg.ZcrxIfq, err error, en unix.Errno, parts ...string) {
	t.Helper()
	require.Nil(t, q)
	var re *reg.Error
	require.ErrorAs(t, err, &re)
	require.Equal(t, sys.RegisterZcrxIfq, re.Op)
	require.Equal(t, en, re.Errno(), "%v", err)
	require.ErrorIs(t, err, en)
	require.False(t, errors.Is(err, uring.ErrUnsupported), "%v", err)
	for _, p := range parts {
		require.Contains(t, err.Error(), p)
	}
	require.Zero(t, reg.ZcrxLive(), "area or refill ring still mapped")
}

func isVirtual(name string) bool {
	_, err := os.Stat("/sys/class/net/" + name + "/device")
	return os.IsNotExist(err)
}

func TestZcrxLoopback(t *testing.T) {
	r := zcrxRing(t)
	// lo has no parent device, so no hardware rx queue: io_register_zcrx_ifq
	// answers EOPNOTSUPP after mapping the refill region, and undoes it.
	q, err := reg.RegisterZcrxIfq(r, zcrxCfg("lo", 0))
	requireZcrxError(t, q, err, unix.EOPNOTSUPP,
		"reg: REGISTER_ZCRX_IFQ: io_uring_register: operation not supported",
		"interface lo is virtual: it has no hardware rx queue with header split")

	// The same through the interface index and a raw fd target.
	lo, err := net.InterfaceByName("lo")
	require.NoError(t, err)
	cfg := zcrxCfg("", 0)
	cfg.IfIndex = lo.Index
	q, err = reg.RegisterZcrxIfq(reg.FdTarget(r.Fd()), cfg)
	requireZcrxError(t, q, err, unix.EOPNOTSUPP, "interface lo is virtual")

	// A CQE_MIXED ring is enough for the 32-byte RECV_ZC completions.
	mixed := newRing(t, 4, uring.WithSingleIssuer(), uring.WithDeferTaskrun(), uring.WithCQEMixed())
	q, err = reg.RegisterZcrxIfq(mixed, zcrxCfg("lo", 0))
	requireZcrxError(t, q, err, unix.EOPNOTSUPP, "interface lo is virtual")
}

// TestZcrxEveryInterface tries every interface of this machine, at an rx
// queue no NIC has (so that a capable NIC is never reconfigured): virtual
// ones answer EOPNOTSUPP, virtio_net (no queue-management API) too, and a
// NIC that has the API says the queue is out of range (ERANGE).
func TestZcrxEveryInterface(t *testing.T) {
	r := zcrxRing(t)
	ifs, err := net.Interfaces()
	require.NoError(t, err)
	const rxq = 65535
	for _, ifi := range ifs {
		q, err := reg.RegisterZcrxIfq(r, zcrxCfg(ifi.Name, rxq))
		t.Logf("%s: %v", ifi.Name, err)
		drv, _ := os.Readlink("/sys/class/net/" + ifi.Name + "/device/driver")
		switch {
		case isVirtual(ifi.Name):
			requireZcrxError(t, q, err, unix.EOPNOTSUPP, "interface "+ifi.Name+" is virtual: it has no hardware rx queue with header split")
		case filepath.Base(drv) == "virtio_net":
			requireZcrxError(t, q, err, unix.EOPNOTSUPP, "interface "+ifi.Name+" (driver virtio_net) has no hardware rx queue with header split")
		default:
			var re *reg.Error
			require.ErrorAs(t, err, &re)
			if re.Errno() == unix.ERANGE {
				requireZcrxError(t, q, err, unix.ERANGE, "interface "+ifi.Name+" has no rx queue 65535")
			} else {
				requireZcrxError(t, q, err, unix.EOPNOTSUPP, "interface "+ifi.Name, "no hardware rx queue with header split")
			}
		}
	}
}

func TestZcrxNoSuchInterface(t *testing.T) {
	r := zcrxRing(t)
	ifs, err := net.Interfaces()
	require.NoError(t, err)
	free := 1
	for _, ifi := range ifs {
		free = max(free, ifi.Index+1000)
	}
	cfg := zcrxCfg("", 0)
	cfg.IfIndex = free
	q, err := reg.RegisterZcrxIfq(r, cfg)
	requireZcrxError(t, q, err, unix.ENODEV, "no interface #"+strconv.Itoa(free)+" in this network namespace")

	q, err = reg.RegisterZcrxIfq(r, zcrxCfg("nosuchif0", 0))
	require.Nil(t, q)
	var ae *reg.ArgError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "Interface", ae.Arg)
	require.ErrorIs(t, err, unix.EINVAL)
	require.Contains(t, err.Error(), "reg: RegisterZcrxIfq: Interface = nosuchif0: ")
}

// TestZcrxRingFlags: a ring zero-copy receive cannot use is refused before
// the call when reg can see its setup flags, and by the kernel (EINVAL,
// explained) through a raw fd.
func TestZcrxRingFlags(t *testing.T) {
	testutil.Require(t, uring.CheckRegisterOp(sys.RegisterZcrxIfq))
	for _, c := range []struct {
		name string
		opts []uring.Option
		want string
	}{
		{"no CQE32", []uring.Option{uring.WithSingleIssuer(), uring.WithDeferTaskrun()},
			"reg: RegisterZcrxIfq: t is a ring without IORING_SETUP_CQE32 or CQE_MIXED: RECV_ZC completions are 32-byte CQEs"},
		{"no DEFER_TASKRUN", []uring.Option{uring.WithCQE32()},
			"reg: RegisterZcrxIfq: t is a ring without IORING_SETUP_DEFER_TASKRUN"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A subtest is a goroutine of its own: lock it to the thread that
			// makes the SINGLE_ISSUER ring, or a register call from another
			// thread gets EEXIST.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			r := newRing(t, 4, c.opts...)
			q, err := reg.RegisterZcrxIfq(r, zcrxCfg("lo", 0))
			require.Nil(t, q)
			var ae *reg.ArgError
			require.ErrorAs(t, err, &ae)
			require.Equal(t, "t", ae.Arg)
			require.ErrorIs(t, err, unix.EINVAL)
			require.Contains(t, err.Error(), c.want)
			require.Zero(t, reg.ZcrxLive())

			// Through a raw fd reg cannot tell: the kernel refuses.
			q, err = reg.RegisterZcrxIfq(reg.FdTarget(r.Fd()), zcrxCfg("lo", 0))
			requireZcrxError(t, q, err, unix.EINVAL,
				"zero-copy receive needs a ring with IORING_SETUP_DEFER_TASKRUN and CQE32 or CQE_MIXED")
		})
	}
}

func TestZcrxArgs(t *testing.T) {
	r := zcrxRing(t)
	for _, c := range []struct {
		arg, want string
		mod       func(*reg.ZcrxConfig)
	}{
		{"RefillEntries", "RefillEntries = 0 is not a power of two in [1, 32768]", func(c *reg.ZcrxConfig) { c.RefillEntries = 0 }},
		{"RefillEntries", "RefillEntries = 100 is not a power of two", func(c *reg.ZcrxConfig) { c.RefillEntries = 100 }},
		{"RefillEntries", "RefillEntries = 65536 is not a power of two in [1, 32768]", func(c *reg.ZcrxConfig) { c.RefillEntries = 65536 }},
		{"AreaSize", "AreaSize = 0 is not in [1, 1 GiB]", func(c *reg.ZcrxConfig) { c.AreaSize = 0 }},
		{"AreaSize", "AreaSize = 1073741825 is not in [1, 1 GiB]", func(c *reg.ZcrxConfig) { c.AreaSize = 1<<30 + 1 }},
		{"RxQueue", "RxQueue = -1 is not in [0, 4294967294]", func(c *reg.ZcrxConfig) { c.RxQueue = -1 }},
		{"IfIndex", "IfIndex = 0 is not a valid interface index (or set Interface)", func(c *reg.ZcrxConfig) { c.Interface = "" }},
		{"IfIndex", "IfIndex = -3 is not a valid interface index", func(c *reg.ZcrxConfig) { c.Interface, c.IfIndex = "", -3 }},
		{"IfIndex", "IfIndex = 1 given with Interface lo: give one", func(c *reg.ZcrxConfig) { c.IfIndex = 1 }},
	} {
		cfg := zcrxCfg("lo", 0)
		c.mod(&cfg)
		q, err := reg.RegisterZcrxIfq(r, cfg)
		require.Nil(t, q)
		var ae *reg.ArgError
		require.ErrorAs(t, err, &ae, c.want)
		require.Equal(t, c.arg, ae.Arg)
		require.Equal(t, "reg: RegisterZcrxIfq: "+c.want, err.Error()[:len("reg: RegisterZcrxIfq: ")+len(c.want)])
		require.ErrorIs(t, err, unix.EINVAL)
	}
	require.Zero(t, reg.ZcrxLive())
}

// TestZcrxRefillRing drives the refill ring and CQE decoding of a queue laid
// out as the kernel lays it out, with the test playing the kernel: no NIC
// here can deliver RECV_ZC completions.
func TestZcrxRefillRing(t *testing.T) {
	const token = 0 << sys.ZcrxAreaShift // the kernel's only area, id 0
	f, err := reg.NewFakeZcrx(4, 64<<10, token)
	require.NoError(t, err)
	q := f.Q
	require.Equal(t, uint32(7), q.ID())
	require.Equal(t, 4, q.RefillEntries())
	require.Len(t, q.Area(), 64<<10)
	copy(q.Area()[8192:], "zero-copy payload")

	cqe := func(off uint64, res int32) *sys.CQE32 {
		return &sys.CQE32{CQE: sys.CQE{Res: res, Flags: sys.CQEFMore}, BigCQE: [2]uint64{token | off, 0}}
	}
	b, err := q.Data(cqe(8192, 17))
	require.NoError(t, err)
	require.Equal(t, "zero-copy payload", string(b))
	require.Equal(t, 17, cap(b), "Data must not expose the area beyond the payload")

	for i := 0; i < 4; i++ {
		require.NoError(t, q.Recycle(cqe(uint64(i)*4096+100, 50)))
		require.Equal(t, uint32(i+1), f.Tail())
		require.Equal(t, sys.ZcrxRQE{Off: token | uint64(i)*4096 + 100, Len: 50}, f.RQEs[i])
	}
	require.ErrorIs(t, q.Recycle(cqe(0, 1)), reg.ErrZcrxRefillFull)
	require.Equal(t, uint32(4), f.Tail())
	f.SetHead(1) // the kernel took one entry
	require.NoError(t, q.Recycle(cqe(12288, 9)))
	require.Equal(t, uint32(5), f.Tail())
	require.Equal(t, sys.ZcrxRQE{Off: 12288, Len: 9}, f.RQEs[0], "wrapped to entry 0")

	for _, c := range []struct {
		c    *sys.CQE32
		want string
	}{
		{cqe(0, 0), "reg: ZcrxIfq.Data: c.Res = 0: the CQE carries no buffer"},
		{cqe(0, -int32(unix.ENOBUFS)), "reg: ZcrxIfq.Data: c.Res = -105: the CQE carries no buffer"},
		{&sys.CQE32{CQE: sys.CQE{Res: 1}, BigCQE: [2]uint64{1 << sys.ZcrxAreaShift, 0}},
			"reg: ZcrxIfq.Data: c extras off = 0x1000000000000 name an area other than this queue's (0x0)"},
		{cqe(64<<10-10, 11), "reg: ZcrxIfq.Data: c extras off = 0xfff6, res = 11 run past the area of 65536 bytes"},
	} {
		_, err := q.Data(c.c)
		require.EqualError(t, err, c.want)
		require.ErrorIs(t, err, unix.EINVAL)
	}
	require.Equal(t, uint32(5), f.Tail(), "a rejected CQE recycles nothing")

	require.NoError(t, q.Free())
	require.Zero(t, reg.ZcrxLive())
	require.Nil(t, q.Area())
	_, err = q.Data(cqe(0, 1))
	require.EqualError(t, err, "reg: ZcrxIfq.Data: ifq is freed")
	require.EqualError(t, q.Recycle(cqe(0, 1)), "reg: ZcrxIfq.Recycle: ifq is freed")
	require.EqualError(t, q.Free(), "reg: ZcrxIfq.Free: ifq is already freed")
}

func TestZcrxRecycleAllocs(t *testing.T) {
	f, err := reg.NewFakeZcrx(8, 4096, 0)
	require.NoError(t, err)
	defer f.Q.Free()
	c := &sys.CQE32{CQE: sys.CQE{Res: 10}}
	var head uint32
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := f.Q.Data(c); err != nil {
			panic(err)
		}
		if err := f.Q.Recycle(c); err != nil {
			panic(err)
		}
		head++
		f.SetHead(head)
	})
	require.Zero(t, allocs)
}
