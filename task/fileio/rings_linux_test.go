//go:build linux

package fileio

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// A ring takes operations until it holds packDepth of them; then the next
// ring does; with every ring full, the least loaded. done takes them off.
func TestPickPacksRings(t *testing.T) {
	requireBackend(t)
	r := newRings(t, 3)
	if r.Fallback() != nil {
		require.Equal(t, -1, r.pick(1), "no ring on the fallback")
		return
	}
	for range packDepth {
		require.Equal(t, 0, r.pick(1))
	}
	require.Equal(t, 1, r.pick(packDepth), "the first ring is full: a batch goes to the second")
	require.Equal(t, 2, r.pick(packDepth+4))
	require.Equal(t, 0, r.pick(1), "all full: the least loaded, the first of equals")
	require.Equal(t, 1, r.pick(1))
	r.done(2, packDepth+4)
	require.Equal(t, 2, r.pick(1), "emptied: it takes the next")
	r.done(0, 4)
	require.Equal(t, 0, r.pick(1), "below packDepth again: the first ring takes it")
	require.NoError(t, r.Close())
	require.Equal(t, -1, r.pick(1), "closed: no ring")
}

// Batches from many goroutines over three rings read back their bytes,
// and every operation counted on a ring is taken off when it completes.
func TestRingLoadsReturnToZero(t *testing.T) {
	requireBackend(t)
	const block, blocks = 4096, 256
	path, data := patterned(t, t.TempDir(), block, blocks)
	r := newRings(t, 3)
	f, err := r.Open(path)
	require.NoError(t, err)
	defer f.Close()
	readers(t, 64, 10, func(rng *rand.Rand, _ []byte) error {
		ops := make([]ReadOp, 4) // a batch of more than one goes through a ring
		for i := range ops {
			ops[i] = ReadOp{Buf: make([]byte, block), Off: int64(rng.IntN(blocks) * block)}
		}
		if err := f.ReadAtBatch(ops); err != nil {
			return err
		}
		for _, op := range ops {
			if op.Err != nil || op.N != block {
				return fmt.Errorf("off %d: n %d err %v", op.Off, op.N, op.Err)
			}
			if string(op.Buf) != string(data[op.Off:op.Off+block]) {
				return fmt.Errorf("off %d: wrong bytes", op.Off)
			}
		}
		return nil
	})
	for i := range r.load {
		require.Zero(t, r.load[i].n.Load(), "ring %d", i)
	}
}
