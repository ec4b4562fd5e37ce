//go:build linux

package reg

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
)

// kernelWith answers the buffer probes as a kernel of release rel would
// (by the releases that added each capability); a probe that fails is
// "failed".
func kernelWith(rel string) func(uring.Capability) error {
	return func(c uring.Capability) error {
		if rel == "failed" {
			return errors.New("probe ring: out of memory")
		}
		if newer(c.Since(), rel) {
			return &uring.UnsupportedError{Feature: c.CName(), MinimumVersion: c.Since(), Kernel: rel, Err: unix.EINVAL}
		}
		return nil
	}
}

// newer reports whether release a ("major.minor") is after b.
func newer(a, b string) bool {
	v := func(s string) [2]int {
		major, minor, _ := strings.Cut(s, ".")
		x, _ := strconv.Atoi(major)
		y, _ := strconv.Atoi(minor)
		return [2]int{x, y}
	}
	va, vb := v(a), v(b)
	return va[0] > vb[0] || va[0] == vb[0] && va[1] > vb[1]
}

// The mechanism a pool gets, by what the kernel has and what was asked.
func TestChooseMechanism(t *testing.T) {
	for _, c := range []struct {
		kernel string
		cfg    PoolConfig
		fd, sq bool
		want   PoolMechanism
		err    string // an UnsupportedError's feature, or an ArgError's text
	}{
		{kernel: "6.18", fd: true, sq: true, want: PoolKernelRing},
		{kernel: "6.12", fd: true, sq: true, want: PoolKernelRing},
		{kernel: "6.4", fd: true, sq: true, want: PoolKernelRing},
		{kernel: "6.3", fd: true, sq: true, want: PoolUserRing},
		{kernel: "6.1", fd: true, sq: true, want: PoolUserRing},
		{kernel: "5.19", fd: true, sq: true, want: PoolUserRing},
		{kernel: "5.15", fd: true, sq: true, want: PoolProvideBuffers},
		{kernel: "5.10", fd: true, sq: true, want: PoolProvideBuffers},
		{kernel: "failed", fd: true, sq: true, want: PoolKernelRing}, // let the registration answer
		// No ring fd: the ring in our memory; UserMemory: the same.
		{kernel: "6.18", fd: false, sq: true, want: PoolUserRing},
		{kernel: "6.18", cfg: PoolConfig{UserMemory: true}, fd: true, sq: true, want: PoolUserRing},
		{kernel: "5.10", cfg: PoolConfig{UserMemory: true}, fd: true, sq: true, want: PoolProvideBuffers},
		// Incremental: a ring with IOU_PBUF_RING_INC or an error naming it.
		{kernel: "6.12", cfg: PoolConfig{Incremental: true}, fd: true, sq: true, want: PoolKernelRing},
		{kernel: "6.12", cfg: PoolConfig{Incremental: true, UserMemory: true}, fd: true, sq: true, want: PoolUserRing},
		{kernel: "6.11", cfg: PoolConfig{Incremental: true}, fd: true, sq: true, err: "IOU_PBUF_RING_INC"},
		{kernel: "6.1", cfg: PoolConfig{Incremental: true}, fd: true, sq: true, err: "IOU_PBUF_RING_INC"},
		{kernel: "5.10", cfg: PoolConfig{Incremental: true}, fd: true, sq: true, err: "IOU_PBUF_RING_INC"},
		// Before 5.19 without an SQ: nothing to fall back on.
		{kernel: "5.10", fd: true, sq: false, err: "IORING_REGISTER_PBUF_RING"},
		// A mechanism asked for by name.
		{kernel: "6.18", cfg: PoolConfig{Mechanism: PoolProvideBuffers}, sq: true, want: PoolProvideBuffers},
		{kernel: "6.18", cfg: PoolConfig{Mechanism: PoolUserRing}, fd: true, sq: true, want: PoolUserRing},
		{kernel: "6.1", cfg: PoolConfig{Mechanism: PoolKernelRing}, fd: true, sq: true, err: "IOU_PBUF_RING_MMAP"},
		{kernel: "5.10", cfg: PoolConfig{Mechanism: PoolUserRing}, fd: true, sq: true, err: "IORING_REGISTER_PBUF_RING"},
		{kernel: "6.18", cfg: PoolConfig{Mechanism: PoolProvideBuffers}, fd: true, sq: false, err: "needs a target with an SQ"},
		{kernel: "6.18", cfg: PoolConfig{Mechanism: PoolKernelRing}, fd: false, sq: true, err: "needs a ring fd"},
		{kernel: "6.18", cfg: PoolConfig{Mechanism: PoolProvideBuffers, Incremental: true}, sq: true, err: "Incremental needs a buffer ring"},
	} {
		got, err := chooseMechanism("NewBufPool", c.cfg, kernelWith(c.kernel), c.fd, c.sq)
		if c.err != "" {
			require.ErrorContains(t, err, c.err, "%+v", c)
			var ae *ArgError
			if !errors.As(err, &ae) {
				var ue *uring.UnsupportedError
				require.ErrorAs(t, err, &ue, "%+v", c)
				require.ErrorIs(t, err, uring.ErrUnsupported)
				require.Equal(t, c.kernel, ue.Kernel)
			}
			continue
		}
		require.NoError(t, err, "%+v", c)
		require.Equal(t, c.want, got, "%+v: %v", c, got)
	}
}
