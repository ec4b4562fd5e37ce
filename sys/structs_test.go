package sys

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// off is one field's offset: got from unsafe.Offsetof, want from the C
// layout in include/uapi/linux/io_uring.h (and io_uring/query.h).
type off struct {
	name      string
	got, want uintptr
}

type layout struct {
	name             string
	size, wantSize   uintptr
	align, wantAlign uintptr
	fields           []off
}

func checkLayouts(t *testing.T, ls []layout) {
	t.Helper()
	for _, l := range ls {
		t.Run(l.name, func(t *testing.T) {
			require.Equal(t, l.wantSize, l.size, "sizeof(%s)", l.name)
			require.Equal(t, l.wantAlign, l.align, "alignof(%s)", l.name)
			for _, f := range l.fields {
				require.Equal(t, f.want, f.got, "offsetof(%s, %s)", l.name, f.name)
			}
		})
	}
}

func TestLayoutRing(t *testing.T) {
	var sqe SQE
	var sqe128 SQE128
	var cqe CQE
	var cqe32 CQE32
	var sq SQRingOffsets
	var cq CQRingOffsets
	var p Params
	checkLayouts(t, []layout{
		{"io_uring_sqe", unsafe.Sizeof(sqe), 64, unsafe.Alignof(sqe), 8, []off{
			{"opcode", unsafe.Offsetof(sqe.Opcode), 0},
			{"flags", unsafe.Offsetof(sqe.Flags), 1},
			{"ioprio", unsafe.Offsetof(sqe.Ioprio), 2},
			{"fd", unsafe.Offsetof(sqe.Fd), 4},
			{"off", unsafe.Offsetof(sqe.Off), 8},
			{"addr", unsafe.Offsetof(sqe.Addr), 16},
			{"len", unsafe.Offsetof(sqe.Len), 24},
			{"rw_flags", unsafe.Offsetof(sqe.OpFlags), 28},
			{"user_data", unsafe.Offsetof(sqe.UserData), 32},
			{"buf_index", unsafe.Offsetof(sqe.BufIndex), 40},
			{"personality", unsafe.Offsetof(sqe.Personality), 42},
			{"file_index", unsafe.Offsetof(sqe.FileIndex), 44},
			{"addr3", unsafe.Offsetof(sqe.Addr3), 48},
			{"__pad2", unsafe.Offsetof(sqe.Pad2), 56},
		}},
		{"io_uring_sqe (SQE128)", unsafe.Sizeof(sqe128), 128, unsafe.Alignof(sqe128), 8, []off{
			{"cmd[16:]", unsafe.Offsetof(sqe128.Cmd), 64},
		}},
		{"io_uring_cqe", unsafe.Sizeof(cqe), 16, unsafe.Alignof(cqe), 8, []off{
			{"user_data", unsafe.Offsetof(cqe.UserData), 0},
			{"res", unsafe.Offsetof(cqe.Res), 8},
			{"flags", unsafe.Offsetof(cqe.Flags), 12},
		}},
		{"io_uring_cqe (CQE32)", unsafe.Sizeof(cqe32), 32, unsafe.Alignof(cqe32), 8, []off{
			{"big_cqe", unsafe.Offsetof(cqe32.BigCQE), 16},
		}},
		{"io_sqring_offsets", unsafe.Sizeof(sq), 40, unsafe.Alignof(sq), 8, []off{
			{"head", unsafe.Offsetof(sq.Head), 0},
			{"tail", unsafe.Offsetof(sq.Tail), 4},
			{"ring_mask", unsafe.Offsetof(sq.RingMask), 8},
			{"ring_entries", unsafe.Offsetof(sq.RingEntries), 12},
			{"flags", unsafe.Offsetof(sq.Flags), 16},
			{"dropped", unsafe.Offsetof(sq.Dropped), 20},
			{"array", unsafe.Offsetof(sq.Array), 24},
			{"resv1", unsafe.Offsetof(sq.Resv1), 28},
			{"user_addr", unsafe.Offsetof(sq.UserAddr), 32},
		}},
		{"io_cqring_offsets", unsafe.Sizeof(cq), 40, unsafe.Alignof(cq), 8, []off{
			{"head", unsafe.Offsetof(cq.Head), 0},
			{"tail", unsafe.Offsetof(cq.Tail), 4},
			{"ring_mask", unsafe.Offsetof(cq.RingMask), 8},
			{"ring_entries", unsafe.Offsetof(cq.RingEntries), 12},
			{"overflow", unsafe.Offsetof(cq.Overflow), 16},
			{"cqes", unsafe.Offsetof(cq.CQEs), 20},
			{"flags", unsafe.Offsetof(cq.Flags), 24},
			{"resv1", unsafe.Offsetof(cq.Resv1), 28},
			{"user_addr", unsafe.Offsetof(cq.UserAddr), 32},
		}},
		{"io_uring_params", unsafe.Sizeof(p), 120, unsafe.Alignof(p), 8, []off{
			{"sq_entries", unsafe.Offsetof(p.SQEntries), 0},
			{"cq_entries", unsafe.Offsetof(p.CQEntries), 4},
			{"flags", unsafe.Offsetof(p.Flags), 8},
			{"sq_thread_cpu", unsafe.Offsetof(p.SQThreadCPU), 12},
			{"sq_thread_idle", unsafe.Offsetof(p.SQThreadIdle), 16},
			{"features", unsafe.Offsetof(p.Features), 20},
			{"wq_fd", unsafe.Offsetof(p.WQFd), 24},
			{"resv", unsafe.Offsetof(p.Resv), 28},
			{"sq_off", unsafe.Offsetof(p.SQOff), 40},
			{"cq_off", unsafe.Offsetof(p.CQOff), 80},
		}},
	})
}

func TestLayoutRegister(t *testing.T) {
	var ph ProbeHdr
	var po ProbeOp
	var pr Probe
	var rr RsrcRegister
	var ru RsrcUpdate
	var ru2 RsrcUpdate2
	var fu FilesUpdate
	var b Buf
	var br BufReg
	var bs BufStatus
	var sc SyncCancelReg
	var fr FileIndexRange
	var n NAPI
	var cr ClockRegister
	var cb CloneBuffers
	var rd RegionDesc
	var mr MemRegionReg
	var rs Restriction
	checkLayouts(t, []layout{
		{"io_uring_probe", unsafe.Sizeof(ph), 16, unsafe.Alignof(ph), 4, []off{
			{"last_op", unsafe.Offsetof(ph.LastOp), 0},
			{"ops_len", unsafe.Offsetof(ph.OpsLen), 1},
			{"resv", unsafe.Offsetof(ph.Resv), 2},
			{"resv2", unsafe.Offsetof(ph.Resv2), 4},
		}},
		{"io_uring_probe + ops[256]", unsafe.Sizeof(pr), 16 + 256*8, unsafe.Alignof(pr), 4, []off{
			{"ops", unsafe.Offsetof(pr.Ops), 16},
		}},
		{"io_uring_probe_op", unsafe.Sizeof(po), 8, unsafe.Alignof(po), 4, []off{
			{"op", unsafe.Offsetof(po.Op), 0},
			{"resv", unsafe.Offsetof(po.Resv), 1},
			{"flags", unsafe.Offsetof(po.Flags), 2},
			{"resv2", unsafe.Offsetof(po.Resv2), 4},
		}},
		{"io_uring_rsrc_register", unsafe.Sizeof(rr), 32, unsafe.Alignof(rr), 8, []off{
			{"nr", unsafe.Offsetof(rr.Nr), 0},
			{"flags", unsafe.Offsetof(rr.Flags), 4},
			{"resv2", unsafe.Offsetof(rr.Resv2), 8},
			{"data", unsafe.Offsetof(rr.Data), 16},
			{"tags", unsafe.Offsetof(rr.Tags), 24},
		}},
		{"io_uring_rsrc_update", unsafe.Sizeof(ru), 16, unsafe.Alignof(ru), 8, []off{
			{"offset", unsafe.Offsetof(ru.Offset), 0},
			{"resv", unsafe.Offsetof(ru.Resv), 4},
			{"data", unsafe.Offsetof(ru.Data), 8},
		}},
		{"io_uring_rsrc_update2", unsafe.Sizeof(ru2), 32, unsafe.Alignof(ru2), 8, []off{
			{"offset", unsafe.Offsetof(ru2.Offset), 0},
			{"resv", unsafe.Offsetof(ru2.Resv), 4},
			{"data", unsafe.Offsetof(ru2.Data), 8},
			{"tags", unsafe.Offsetof(ru2.Tags), 16},
			{"nr", unsafe.Offsetof(ru2.Nr), 24},
			{"resv2", unsafe.Offsetof(ru2.Resv2), 28},
		}},
		{"io_uring_files_update", unsafe.Sizeof(fu), 16, unsafe.Alignof(fu), 8, []off{
			{"offset", unsafe.Offsetof(fu.Offset), 0},
			{"resv", unsafe.Offsetof(fu.Resv), 4},
			{"fds", unsafe.Offsetof(fu.Fds), 8},
		}},
		{"io_uring_buf", unsafe.Sizeof(b), 16, unsafe.Alignof(b), 8, []off{
			{"addr", unsafe.Offsetof(b.Addr), 0},
			{"len", unsafe.Offsetof(b.Len), 8},
			{"bid", unsafe.Offsetof(b.Bid), 12},
			{"resv (ring tail)", unsafe.Offsetof(b.Resv), 14},
		}},
		// 7.1 split __u64 resv[3] into min_left and __u32 resv[5].
		{"io_uring_buf_reg", unsafe.Sizeof(br), 40, unsafe.Alignof(br), 8, []off{
			{"ring_addr", unsafe.Offsetof(br.RingAddr), 0},
			{"ring_entries", unsafe.Offsetof(br.RingEntries), 8},
			{"bgid", unsafe.Offsetof(br.Bgid), 12},
			{"flags", unsafe.Offsetof(br.Flags), 14},
			{"min_left", unsafe.Offsetof(br.MinLeft), 16},
			{"resv", unsafe.Offsetof(br.Resv), 20},
		}},
		{"io_uring_buf_status", unsafe.Sizeof(bs), 40, unsafe.Alignof(bs), 4, []off{
			{"buf_group", unsafe.Offsetof(bs.BufGroup), 0},
			{"head", unsafe.Offsetof(bs.Head), 4},
			{"resv", unsafe.Offsetof(bs.Resv), 8},
		}},
		{"io_uring_sync_cancel_reg", unsafe.Sizeof(sc), 64, unsafe.Alignof(sc), 8, []off{
			{"addr", unsafe.Offsetof(sc.Addr), 0},
			{"fd", unsafe.Offsetof(sc.Fd), 8},
			{"flags", unsafe.Offsetof(sc.Flags), 12},
			{"timeout", unsafe.Offsetof(sc.Timeout), 16},
			{"opcode", unsafe.Offsetof(sc.Opcode), 32},
			{"pad", unsafe.Offsetof(sc.Pad), 33},
			{"pad2", unsafe.Offsetof(sc.Pad2), 40},
		}},
		{"io_uring_file_index_range", unsafe.Sizeof(fr), 16, unsafe.Alignof(fr), 8, []off{
			{"off", unsafe.Offsetof(fr.Off), 0},
			{"len", unsafe.Offsetof(fr.Len), 4},
			{"resv", unsafe.Offsetof(fr.Resv), 8},
		}},
		{"io_uring_napi", unsafe.Sizeof(n), 16, unsafe.Alignof(n), 4, []off{
			{"busy_poll_to", unsafe.Offsetof(n.BusyPollTo), 0},
			{"prefer_busy_poll", unsafe.Offsetof(n.PreferBusyPoll), 4},
			{"opcode", unsafe.Offsetof(n.Opcode), 5},
			{"pad", unsafe.Offsetof(n.Pad), 6},
			{"op_param", unsafe.Offsetof(n.OpParam), 8},
			{"resv", unsafe.Offsetof(n.Resv), 12},
		}},
		{"io_uring_clock_register", unsafe.Sizeof(cr), 16, unsafe.Alignof(cr), 4, []off{
			{"clockid", unsafe.Offsetof(cr.ClockID), 0},
			{"__resv", unsafe.Offsetof(cr.Resv), 4},
		}},
		{"io_uring_clone_buffers", unsafe.Sizeof(cb), 32, unsafe.Alignof(cb), 4, []off{
			{"src_fd", unsafe.Offsetof(cb.SrcFd), 0},
			{"flags", unsafe.Offsetof(cb.Flags), 4},
			{"src_off", unsafe.Offsetof(cb.SrcOff), 8},
			{"dst_off", unsafe.Offsetof(cb.DstOff), 12},
			{"nr", unsafe.Offsetof(cb.Nr), 16},
			{"pad", unsafe.Offsetof(cb.Pad), 20},
		}},
		{"io_uring_region_desc", unsafe.Sizeof(rd), 64, unsafe.Alignof(rd), 8, []off{
			{"user_addr", unsafe.Offsetof(rd.UserAddr), 0},
			{"size", unsafe.Offsetof(rd.Size), 8},
			{"flags", unsafe.Offsetof(rd.Flags), 16},
			{"id", unsafe.Offsetof(rd.ID), 20},
			{"mmap_offset", unsafe.Offsetof(rd.MmapOffset), 24},
			{"__resv", unsafe.Offsetof(rd.Resv), 32},
		}},
		{"io_uring_mem_region_reg", unsafe.Sizeof(mr), 32, unsafe.Alignof(mr), 8, []off{
			{"region_uptr", unsafe.Offsetof(mr.RegionUptr), 0},
			{"flags", unsafe.Offsetof(mr.Flags), 8},
			{"__resv", unsafe.Offsetof(mr.Resv), 16},
		}},
		{"io_uring_restriction", unsafe.Sizeof(rs), 16, unsafe.Alignof(rs), 4, []off{
			{"opcode", unsafe.Offsetof(rs.Opcode), 0},
			{"register_op", unsafe.Offsetof(rs.Arg), 2},
			{"resv", unsafe.Offsetof(rs.Resv), 3},
			{"resv2", unsafe.Offsetof(rs.Resv2), 4},
		}},
	})
}

func TestLayoutWaitAndMisc(t *testing.T) {
	var ts Timespec
	var ga GeteventsArg
	var rw RegWait
	var ro RecvmsgOut
	var pi AttrPI
	var qh QueryHdr
	var qo QueryOpcode
	checkLayouts(t, []layout{
		{"__kernel_timespec", unsafe.Sizeof(ts), 16, unsafe.Alignof(ts), 8, []off{
			{"tv_sec", unsafe.Offsetof(ts.Sec), 0},
			{"tv_nsec", unsafe.Offsetof(ts.Nsec), 8},
		}},
		{"io_uring_getevents_arg", unsafe.Sizeof(ga), 24, unsafe.Alignof(ga), 8, []off{
			{"sigmask", unsafe.Offsetof(ga.Sigmask), 0},
			{"sigmask_sz", unsafe.Offsetof(ga.SigmaskSz), 8},
			{"min_wait_usec", unsafe.Offsetof(ga.MinWaitUsec), 12},
			{"ts", unsafe.Offsetof(ga.Ts), 16},
		}},
		{"io_uring_reg_wait", unsafe.Sizeof(rw), 64, unsafe.Alignof(rw), 8, []off{
			{"ts", unsafe.Offsetof(rw.Ts), 0},
			{"min_wait_usec", unsafe.Offsetof(rw.MinWaitUsec), 16},
			{"flags", unsafe.Offsetof(rw.Flags), 20},
			{"sigmask", unsafe.Offsetof(rw.Sigmask), 24},
			{"sigmask_sz", unsafe.Offsetof(rw.SigmaskSz), 32},
			{"pad", unsafe.Offsetof(rw.Pad), 36},
			{"pad2", unsafe.Offsetof(rw.Pad2), 48},
		}},
		{"io_uring_recvmsg_out", unsafe.Sizeof(ro), 16, unsafe.Alignof(ro), 4, []off{
			{"namelen", unsafe.Offsetof(ro.Namelen), 0},
			{"controllen", unsafe.Offsetof(ro.Controllen), 4},
			{"payloadlen", unsafe.Offsetof(ro.Payloadlen), 8},
			{"flags", unsafe.Offsetof(ro.Flags), 12},
		}},
		{"io_uring_attr_pi", unsafe.Sizeof(pi), 32, unsafe.Alignof(pi), 8, []off{
			{"flags", unsafe.Offsetof(pi.Flags), 0},
			{"app_tag", unsafe.Offsetof(pi.AppTag), 2},
			{"len", unsafe.Offsetof(pi.Len), 4},
			{"addr", unsafe.Offsetof(pi.Addr), 8},
			{"seed", unsafe.Offsetof(pi.Seed), 16},
			{"rsvd", unsafe.Offsetof(pi.Rsvd), 24},
		}},
		{"io_uring_query_hdr", unsafe.Sizeof(qh), 40, unsafe.Alignof(qh), 8, []off{
			{"next_entry", unsafe.Offsetof(qh.NextEntry), 0},
			{"query_data", unsafe.Offsetof(qh.QueryData), 8},
			{"query_op", unsafe.Offsetof(qh.QueryOp), 16},
			{"size", unsafe.Offsetof(qh.Size), 20},
			{"result", unsafe.Offsetof(qh.Result), 24},
			{"__resv", unsafe.Offsetof(qh.Resv), 28},
		}},
		// The kernel copies min(hdr.size, its own size).
		{"io_uring_query_opcode", unsafe.Sizeof(qo), 48, unsafe.Alignof(qo), 8, []off{
			{"nr_request_opcodes", unsafe.Offsetof(qo.NrRequestOpcodes), 0},
			{"nr_register_opcodes", unsafe.Offsetof(qo.NrRegisterOpcodes), 4},
			{"feature_flags", unsafe.Offsetof(qo.FeatureFlags), 8},
			{"ring_setup_flags", unsafe.Offsetof(qo.RingSetupFlags), 16},
			{"enter_flags", unsafe.Offsetof(qo.EnterFlags), 24},
			{"sqe_flags", unsafe.Offsetof(qo.SQEFlags), 32},
			{"nr_query_opcodes", unsafe.Offsetof(qo.NrQueryOpcodes), 40},
			{"__pad", unsafe.Offsetof(qo.Pad), 44},
		}},
	})
}

// TestSizeOf checks the generic helper against unsafe.Sizeof.
func TestSizeOf(t *testing.T) {
	require.Equal(t, uintptr(64), SizeOf[SQE]())
	require.Equal(t, uintptr(16), SizeOf[CQE]())
	require.Equal(t, uintptr(120), SizeOf[Params]())
	require.Equal(t, uintptr(0), SizeOf[struct{}]())
}

// TestLayoutNewer pins the structs added from 6.16 on (values from the
// Linux 7.3 header; TestUAPIHeader checks them, and every other, against a
// real header when one is at hand).
func TestLayoutNewer(t *testing.T) {
	var br BufRing
	var tr TaskRestriction
	var qz QueryZcrxInfo
	var qe QueryZcrxEventInfo
	var qs QuerySCQInfo
	var ts IOTimespec
	var zs ZcrxStats
	var ed ZcrxEventDesc
	var zc ZcrxCtrl
	var fr ZcrxCtrlFlushRQArg
	var ex ZcrxCtrlExportArg
	var ae ZcrxCtrlArmEventArg
	var aa ZcrxCtrlAddAreaArg
	var bc BPFCtx
	var bf BPFFilter
	var bp BPFRegister
	var mp MockProbe
	var mc MockCreate
	checkLayouts(t, []layout{
		{"io_uring_buf_ring", unsafe.Sizeof(br), 16, unsafe.Alignof(br), 8, []off{
			{"resv2", unsafe.Offsetof(br.Resv2), 8},
			{"resv3", unsafe.Offsetof(br.Resv3), 12},
			{"tail", unsafe.Offsetof(br.Tail), 14},
		}},
		{"io_uring_task_restriction", unsafe.Sizeof(tr), 16, unsafe.Alignof(tr), 4, []off{
			{"nr_res", unsafe.Offsetof(tr.NrRes), 2},
			{"resv", unsafe.Offsetof(tr.Resv), 4},
		}},
		{"io_uring_query_zcrx", unsafe.Sizeof(qz), 40, unsafe.Alignof(qz), 8, []off{
			{"nr_ctrl_opcodes", unsafe.Offsetof(qz.NrCtrlOpcodes), 16},
			{"features", unsafe.Offsetof(qz.Features), 20},
			{"rq_hdr_alignment", unsafe.Offsetof(qz.RqHdrAlignment), 28},
			{"__resv2", unsafe.Offsetof(qz.Resv2), 32},
		}},
		{"io_uring_query_zcrx_event", unsafe.Sizeof(qe), 48, unsafe.Alignof(qe), 8, []off{
			{"stats_off_alignment", unsafe.Offsetof(qe.StatsOffAlignment), 8},
			{"__resv2", unsafe.Offsetof(qe.Resv2), 16},
		}},
		{"io_uring_query_scq", unsafe.Sizeof(qs), 16, unsafe.Alignof(qs), 8, []off{
			{"hdr_alignment", unsafe.Offsetof(qs.HdrAlignment), 8},
		}},
		{"io_timespec", unsafe.Sizeof(ts), 16, unsafe.Alignof(ts), 8, []off{
			{"tv_nsec", unsafe.Offsetof(ts.Nsec), 8},
		}},
		{"zcrx_stats", unsafe.Sizeof(zs), 16, unsafe.Alignof(zs), 8, []off{
			{"copy_bytes", unsafe.Offsetof(zs.CopyBytes), 8},
		}},
		{"zcrx_event_desc", unsafe.Sizeof(ed), 96, unsafe.Alignof(ed), 8, []off{
			{"type_mask", unsafe.Offsetof(ed.TypeMask), 8},
			{"flags", unsafe.Offsetof(ed.Flags), 12},
			{"stats_offset", unsafe.Offsetof(ed.StatsOffset), 16},
			{"__resv2", unsafe.Offsetof(ed.Resv2), 24},
		}},
		{"zcrx_ctrl", unsafe.Sizeof(zc), 72, unsafe.Alignof(zc), 8, []off{
			{"op", unsafe.Offsetof(zc.Op), 4},
			{"__resv", unsafe.Offsetof(zc.Resv), 8},
			{"zc_export", unsafe.Offsetof(zc.Data), 24},
		}},
		{"zcrx_ctrl_flush_rq", unsafe.Sizeof(fr), 48, unsafe.Alignof(fr), 8, nil},
		{"zcrx_ctrl_export", unsafe.Sizeof(ex), 48, unsafe.Alignof(ex), 4, []off{
			{"__resv1", unsafe.Offsetof(ex.Resv1), 4},
		}},
		{"zcrx_ctrl_arm_event", unsafe.Sizeof(ae), 48, unsafe.Alignof(ae), 4, []off{
			{"__resv", unsafe.Offsetof(ae.Resv), 4},
		}},
		{"zcrx_ctrl_add_area", unsafe.Sizeof(aa), 48, unsafe.Alignof(aa), 8, []off{
			{"__resv", unsafe.Offsetof(aa.Resv), 8},
		}},
		{"io_uring_bpf_ctx", unsafe.Sizeof(bc), 40, unsafe.Alignof(bc), 8, []off{
			{"opcode", unsafe.Offsetof(bc.Opcode), 8},
			{"sqe_flags", unsafe.Offsetof(bc.SQEFlags), 9},
			{"pdu_size", unsafe.Offsetof(bc.PduSize), 10},
			{"pad", unsafe.Offsetof(bc.Pad), 11},
			{"socket|open|connect", unsafe.Offsetof(bc.Args), 16},
		}},
		{"io_uring_bpf_filter", unsafe.Sizeof(bf), 64, unsafe.Alignof(bf), 8, []off{
			{"filter_len", unsafe.Offsetof(bf.FilterLen), 8},
			{"pdu_size", unsafe.Offsetof(bf.PduSize), 12},
			{"resv", unsafe.Offsetof(bf.Resv), 13},
			{"filter_ptr", unsafe.Offsetof(bf.FilterPtr), 16},
			{"resv2", unsafe.Offsetof(bf.Resv2), 24},
		}},
		{"io_uring_bpf", unsafe.Sizeof(bp), 72, unsafe.Alignof(bp), 8, []off{
			{"cmd_flags", unsafe.Offsetof(bp.CmdFlags), 2},
			{"resv", unsafe.Offsetof(bp.Resv), 4},
			{"filter", unsafe.Offsetof(bp.Filter), 8},
		}},
		{"io_uring_mock_probe", unsafe.Sizeof(mp), 80, unsafe.Alignof(mp), 8, []off{
			{"__resv", unsafe.Offsetof(mp.Resv), 8},
		}},
		{"io_uring_mock_create", unsafe.Sizeof(mc), 128, unsafe.Alignof(mc), 8, []off{
			{"flags", unsafe.Offsetof(mc.Flags), 4},
			{"file_size", unsafe.Offsetof(mc.FileSize), 8},
			{"rw_delay_ns", unsafe.Offsetof(mc.RWDelayNs), 16},
			{"__resv", unsafe.Offsetof(mc.Resv), 24},
		}},
	})
}
