//go:build linux

package trace

import (
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

// Stack slots of every program, as offsets from the frame pointer R10.
const (
	fpStatsKey  = -8  // statsKey{tgid u32, op u32}
	fpReq       = -16 // inflight key: request pointer
	fpInflight  = -32 // inflight value: {ts u64 @-32, tgid u32 @-24, op u32 @-20}
	fpLatency   = -40 // latency in ns
	fpErrnoKey  = -48 // errnoKey{tgid u32 @-48, op u16 @-44, errno u16 @-42}
	fpZeroU64   = -56 // 0, the initial value of an errno counter
	fpZeroKey   = -64 // u32 0: key of the zero map
	fpRes       = -72 // completion result, sign-extended
	fpCflags    = -80 // completion flags
	bpfAny      = 0   // BPF_ANY
	bpfNoExist  = 1   // BPF_NOEXIST
	labelExit   = "exit"
	programLic  = "Dual MIT/GPL"
	mapInflight = "inflight"
	mapStats    = "stats"
	mapErrnos   = "errnos"
	mapZero     = "zero"
)

// gen appends instructions; a label names the next instruction emitted.
type gen struct {
	insns   asm.Instructions
	pending string
}

func (g *gen) emit(ins ...asm.Instruction) {
	for _, in := range ins {
		if g.pending != "" {
			in = in.WithSymbol(g.pending)
			g.pending = ""
		}
		g.insns = append(g.insns, in)
	}
}

// mark names the next instruction; two labels in a row are joined by a
// jump to the next instruction (ja +0).
func (g *gen) mark(label string) {
	if g.pending != "" {
		g.emit(asm.Ja.Label(label))
	}
	g.pending = label
}

func size(n int) asm.Size {
	switch n {
	case 1:
		return asm.Byte
	case 2:
		return asm.Half
	case 4:
		return asm.Word
	}
	return asm.DWord
}

// load reads field f of the trace entry (R6 holds the context) into dst,
// sign-extending signed fields narrower than 64 bits.
func (g *gen) load(dst asm.Register, f field) {
	g.emit(asm.LoadMem(dst, asm.R6, int16(f.Offset), size(f.Size)))
	if f.Signed && f.Size < 8 {
		shift := int32(64 - 8*f.Size)
		g.emit(asm.LSh.Imm(dst, shift), asm.ArSh.Imm(dst, shift))
	}
}

// prologue keeps the context in R6 and the caller's tgid in R7, and leaves
// when a pid filter is set and does not match.
func (g *gen) prologue(pid uint32) {
	g.emit(asm.Mov.Reg(asm.R6, asm.R1))
	g.currentTgid(pid)
}

func (g *gen) currentTgid(pid uint32) {
	g.emit(
		asm.FnGetCurrentPidTgid.Call(),
		asm.Mov.Reg(asm.R7, asm.R0),
		asm.RSh.Imm(asm.R7, 32),
	)
	if pid != 0 {
		g.emit(asm.JNE.Imm(asm.R7, int32(pid), labelExit))
	}
}

func (g *gen) stackPtr(dst asm.Register, off int16) {
	g.emit(asm.Mov.Reg(dst, asm.R10), asm.Add.Imm(dst, int32(off)))
}

// statsEntry looks up (or creates) the stats entry of (R7 tgid, R9 op) and
// leaves its pointer in R8; it jumps to exit when the map is full.
func (g *gen) statsEntry(name string) {
	got := name + "_got"
	g.emit(
		asm.StoreMem(asm.R10, fpStatsKey, asm.R7, asm.Word),
		asm.StoreMem(asm.R10, fpStatsKey+4, asm.R9, asm.Word),
		asm.LoadMapPtr(asm.R1, 0).WithReference(mapStats),
	)
	g.stackPtr(asm.R2, fpStatsKey)
	g.emit(asm.FnMapLookupElem.Call(), asm.JNE.Imm(asm.R0, 0, got))
	// Absent: insert a zero value (the zero map's only entry), then look up
	// again; a concurrent insert makes ours fail with EEXIST, which is fine.
	g.emit(
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.R10, fpZeroKey, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, 0).WithReference(mapZero),
	)
	g.stackPtr(asm.R2, fpZeroKey)
	g.emit(
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, labelExit),
		asm.Mov.Reg(asm.R3, asm.R0),
		asm.LoadMapPtr(asm.R1, 0).WithReference(mapStats),
	)
	g.stackPtr(asm.R2, fpStatsKey)
	g.emit(asm.Mov.Imm(asm.R4, bpfNoExist), asm.FnMapUpdateElem.Call(),
		asm.LoadMapPtr(asm.R1, 0).WithReference(mapStats))
	g.stackPtr(asm.R2, fpStatsKey)
	g.emit(
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, labelExit),
		// New entry: remember the comm, which outlives the process.
		asm.Mov.Reg(asm.R8, asm.R0),
		asm.Mov.Reg(asm.R1, asm.R8),
		asm.Add.Imm(asm.R1, slotComm*8),
		asm.Mov.Imm(asm.R2, commLen),
		asm.FnGetCurrentComm.Call(),
		asm.Mov.Reg(asm.R0, asm.R8),
	)
	g.mark(got)
	g.emit(asm.Mov.Reg(asm.R8, asm.R0))
}

// addImm atomically adds v to slot of the stats entry in R8.
func (g *gen) addImm(slot int, v int32) {
	g.emit(asm.Mov.Imm(asm.R1, v), asm.AddAtomic.Mem(asm.R8, asm.R1, asm.DWord, int16(slot*8)))
}

// addReg atomically adds src (not R8) to slot of the stats entry in R8.
func (g *gen) addReg(slot int, src asm.Register) {
	g.emit(asm.AddAtomic.Mem(asm.R8, src, asm.DWord, int16(slot*8)))
}

func (g *gen) epilogue() {
	g.mark(labelExit)
	g.emit(asm.Mov.Imm(asm.R0, 0), asm.Return())
}

// reqKey is what identifies a request in flight: the request pointer, or
// (before 5.19, when io_uring_complete has no req field) the ring pointer
// and the user_data, folded into one word.
type reqKey struct {
	req, ctx, userData field
	byUserData         bool
}

func requestKey(f *format) (reqKey, error) {
	var k reqKey
	var err error
	if !f.byUserData {
		k.req, err = f.need("req", 8)
		return k, err
	}
	k.byUserData = true
	if k.ctx, err = f.need("ctx", 8); err != nil {
		return k, err
	}
	k.userData, err = f.need("user_data", 8)
	return k, err
}

// storeKey writes the request's key to the stack at fpReq (clobbers R1, R2).
func (g *gen) storeKey(k reqKey) {
	if !k.byUserData {
		g.load(asm.R1, k.req)
	} else {
		g.load(asm.R1, k.ctx)
		g.load(asm.R2, k.userData)
		g.emit(asm.Xor.Reg(asm.R1, asm.R2))
	}
	g.emit(asm.StoreMem(asm.R10, fpReq, asm.R1, asm.DWord))
}

// progSubmit handles io_uring_submit_req (and io_uring_req_failed, with
// slot = slotReqFailed): it records {now, tgid, opcode} for the request
// pointer and counts the event.
func progSubmit(f *format, slot int, pid uint32) (asm.Instructions, error) {
	key, err := requestKey(f)
	if err != nil {
		return nil, err
	}
	op, err := f.need("opcode", 1, 2, 4)
	if err != nil {
		return nil, err
	}
	var g gen
	g.prologue(pid)
	g.storeKey(key)
	g.load(asm.R9, op)
	g.emit(
		asm.FnKtimeGetNs.Call(),
		asm.StoreMem(asm.R10, fpInflight, asm.R0, asm.DWord),
		asm.StoreMem(asm.R10, fpInflight+8, asm.R7, asm.Word),
		asm.StoreMem(asm.R10, fpInflight+12, asm.R9, asm.Word),
		asm.LoadMapPtr(asm.R1, 0).WithReference(mapInflight),
	)
	g.stackPtr(asm.R2, fpReq)
	g.stackPtr(asm.R3, fpInflight)
	g.emit(asm.Mov.Imm(asm.R4, bpfAny), asm.FnMapUpdateElem.Call())
	g.statsEntry("stats")
	g.addImm(slot, 1)
	g.epilogue()
	return g.insns, nil
}

// progComplete handles io_uring_complete: it finds the request's submit
// record, counts the completion under its opcode with its latency, and counts
// a negative result by errno.
func progComplete(f *format, pid uint32) (asm.Instructions, error) {
	key, err := requestKey(f)
	if err != nil {
		return nil, err
	}
	res, err := f.need("res", 4, 8)
	if err != nil {
		return nil, err
	}
	res.Signed = true // a CQE's res is an s32 whatever the format says
	cflags, err := f.need("cflags", 4)
	if err != nil {
		return nil, err
	}
	var g gen
	g.emit(asm.Mov.Reg(asm.R6, asm.R1))
	g.storeKey(key)
	g.load(asm.R1, res)
	g.emit(asm.StoreMem(asm.R10, fpRes, asm.R1, asm.DWord))
	g.load(asm.R1, cflags)
	g.emit(
		asm.StoreMem(asm.R10, fpCflags, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, 0).WithReference(mapInflight),
	)
	g.stackPtr(asm.R2, fpReq)
	g.emit(
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "unknown"),
		// Known request: tgid and opcode come from its submit record (the
		// completion may run on an io-wq worker or in another task).
		asm.Mov.Reg(asm.R8, asm.R0),
		asm.LoadMem(asm.R7, asm.R8, 8, asm.Word),
		asm.LoadMem(asm.R9, asm.R8, 12, asm.Word),
		asm.FnKtimeGetNs.Call(),
		asm.LoadMem(asm.R1, asm.R8, 0, asm.DWord),
		asm.Mov.Reg(asm.R2, asm.R0),
		asm.Sub.Reg(asm.R2, asm.R1),
		asm.StoreMem(asm.R10, fpLatency, asm.R2, asm.DWord),
		asm.LoadMem(asm.R1, asm.R10, fpCflags, asm.DWord),
		asm.And.Imm(asm.R1, cqeFMore),
		asm.JEq.Imm(asm.R1, 0, "delete"),
		// Multishot: more CQEs follow; time the next one from now.
		asm.StoreMem(asm.R8, 0, asm.R0, asm.DWord),
		asm.Ja.Label("known"),
	)
	g.mark("delete")
	g.emit(asm.LoadMapPtr(asm.R1, 0).WithReference(mapInflight))
	g.stackPtr(asm.R2, fpReq)
	g.emit(asm.FnMapDeleteElem.Call())
	g.mark("known")
	g.statsEntry("known")
	g.addImm(slotCompletes, 1)
	g.addImm(slotLatCount, 1)
	g.emit(asm.LoadMem(asm.R1, asm.R10, fpLatency, asm.DWord))
	g.addReg(slotLatSumNs, asm.R1)
	g.log2Bucket()
	g.emit(asm.Ja.Label("errors"))

	g.mark("unknown")
	g.currentTgid(pid)
	g.emit(asm.Mov.Imm(asm.R9, opUnknown))
	g.statsEntry("unknown")
	g.addImm(slotCompletes, 1)

	g.mark("errors")
	g.emit(
		asm.LoadMem(asm.R1, asm.R10, fpRes, asm.DWord),
		asm.JSGE.Imm(asm.R1, 0, labelExit),
	)
	g.addImm(slotErrors, 1)
	g.emit(
		asm.LoadMem(asm.R1, asm.R10, fpRes, asm.DWord),
		asm.Neg.Imm(asm.R1, 0),
		asm.StoreMem(asm.R10, fpErrnoKey+6, asm.R1, asm.Half),
		asm.StoreMem(asm.R10, fpErrnoKey, asm.R7, asm.Word),
		asm.StoreMem(asm.R10, fpErrnoKey+4, asm.R9, asm.Half),
		asm.Mov.Imm(asm.R1, 0),
		asm.StoreMem(asm.R10, fpZeroU64, asm.R1, asm.DWord),
		asm.LoadMapPtr(asm.R1, 0).WithReference(mapErrnos),
	)
	g.stackPtr(asm.R2, fpErrnoKey)
	g.emit(asm.FnMapLookupElem.Call(), asm.JNE.Imm(asm.R0, 0, "errno_got"),
		asm.LoadMapPtr(asm.R1, 0).WithReference(mapErrnos))
	g.stackPtr(asm.R2, fpErrnoKey)
	g.stackPtr(asm.R3, fpZeroU64)
	g.emit(asm.Mov.Imm(asm.R4, bpfNoExist), asm.FnMapUpdateElem.Call(),
		asm.LoadMapPtr(asm.R1, 0).WithReference(mapErrnos))
	g.stackPtr(asm.R2, fpErrnoKey)
	g.emit(asm.FnMapLookupElem.Call(), asm.JEq.Imm(asm.R0, 0, labelExit))
	g.mark("errno_got")
	g.emit(asm.Mov.Imm(asm.R1, 1), asm.AddAtomic.Mem(asm.R0, asm.R1, asm.DWord, 0))
	g.epilogue()
	return g.insns, nil
}

// log2Bucket adds one to the histogram bucket floor(log2(latency)) of the
// stats entry in R8, by binary search over the bit length (no loops).
func (g *gen) log2Bucket() {
	g.emit(
		asm.LoadMem(asm.R2, asm.R10, fpLatency, asm.DWord),
		asm.Mov.Imm(asm.R3, 0),
	)
	for _, s := range []int32{32, 16, 8, 4, 2, 1} {
		next := fmt.Sprintf("log2_%d", s)
		g.emit(
			asm.Mov.Reg(asm.R4, asm.R2),
			asm.RSh.Imm(asm.R4, s),
			asm.JEq.Imm(asm.R4, 0, next),
			asm.Mov.Reg(asm.R2, asm.R4),
			asm.Add.Imm(asm.R3, s),
		)
		g.mark(next)
	}
	g.emit(
		asm.JLE.Imm(asm.R3, HistBuckets-1, "log2_ok"),
		asm.Mov.Imm(asm.R3, HistBuckets-1),
	)
	g.mark("log2_ok")
	g.emit(
		asm.LSh.Imm(asm.R3, 3),
		asm.Mov.Reg(asm.R4, asm.R8),
		asm.Add.Reg(asm.R4, asm.R3),
		asm.Mov.Imm(asm.R1, 1),
		asm.AddAtomic.Mem(asm.R4, asm.R1, asm.DWord, slotHist*8),
	)
}

// progCount counts one event under (tgid, opcode field) or, when opName is
// "", under the process; sumField, when set, is added to sumSlot too.
func progCount(f *format, opName string, slot int, sumField string, sumSlot int, pid uint32) (asm.Instructions, error) {
	var op, sum field
	var err error
	if opName != "" {
		if op, err = f.need(opName, 1, 2, 4); err != nil {
			return nil, err
		}
	}
	if sumField != "" {
		if sum, err = f.need(sumField, 4, 8); err != nil {
			return nil, err
		}
	}
	var g gen
	g.prologue(pid)
	if opName != "" {
		g.load(asm.R9, op)
	} else {
		g.emit(asm.Mov.Imm(asm.R9, opProcess))
	}
	g.statsEntry("stats")
	g.addImm(slot, 1)
	if sumField != "" {
		g.load(asm.R1, sum)
		g.emit(asm.JSLT.Imm(asm.R1, 0, labelExit))
		g.addReg(sumSlot, asm.R1)
	}
	g.epilogue()
	return g.insns, nil
}

// collectionSpec declares the maps shared by all programs.
func collectionSpec() *ebpf.CollectionSpec {
	return &ebpf.CollectionSpec{
		Maps: map[string]*ebpf.MapSpec{
			mapInflight: {Name: mapInflight, Type: ebpf.LRUHash, KeySize: 8, ValueSize: inflightValueSize, MaxEntries: maxInflight},
			mapStats:    {Name: mapStats, Type: ebpf.Hash, KeySize: 8, ValueSize: statsValueSize, MaxEntries: maxStats},
			mapErrnos:   {Name: mapErrnos, Type: ebpf.Hash, KeySize: errnoKeySize, ValueSize: 8, MaxEntries: maxErrnos},
			mapZero:     {Name: mapZero, Type: ebpf.Array, KeySize: 4, ValueSize: statsValueSize, MaxEntries: 1},
		},
		Programs: map[string]*ebpf.ProgramSpec{},
	}
}
