//go:build linux

package uring_test

import (
	"os"
	"reflect"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// What a C programmer porting code from liburing finds here: every
// io_uring_prep_* helper of liburing's public header, every call of its
// register and ring API, and every call that submits or waits, each with
// the Go functions that do its work. Written from liburing's
// src/include/liburing.h at its newest commit (2026-08-19, after 2.15:
// 105 prep helpers, 2.15's 104 and io_uring_prep_cmd_zone_reset_all).
//
// An entry names Go functions as values, so a rename breaks the build; an
// entry without one fails the test. The README's package table gives the
// counts this test logs.
//
// Left out on purpose, as not calls on a ring: the SQE and CQE accessors
// (io_uring_sqe_set_*, io_uring_cqe_get_*, io_uring_cq_advance, ...: the
// Ring's methods and packages sqe and cqe), the buffer-ring accessors
// (io_uring_buf_ring_*: reg.BufRing), the recvmsg parsers
// (io_uring_recvmsg_*: cqe.ParseRecvmsg), io_uring_free_probe (the garbage
// collector frees), the version checks (io_uring_major_version, ...),
// the memory sizers io_uring_mlock_size and io_uring_memory_size (and
// their _params forms) and io_uring_queue_mmap (mapping a ring made
// elsewhere), which have no counterpart.

type counterpart struct {
	c     string // liburing's name, without io_uring_
	goFns []any  // the Go functions (func values) that cover it
}

// nameOf is the Go name of a function value.
func nameOf(f any) string {
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Func || v.IsNil() {
		return ""
	}
	n := runtime.FuncForPC(v.Pointer()).Name()
	n = strings.TrimPrefix(n, "github.com/pure-uring/uring/")
	n = strings.TrimPrefix(n, "github.com/pure-uring/")
	return strings.TrimSuffix(n, "-fm")
}

func fns(f ...any) []any { return f }

// prepHelpers: every io_uring_prep_* of liburing.h.
func prepHelpers() []counterpart {
	return []counterpart{
		{"prep_accept", fns(sqe.Accept)},
		{"prep_accept_direct", fns(sqe.AcceptDirect)},
		{"prep_bind", fns(sqe.Bind[unix.RawSockaddrInet4])},
		{"prep_cancel", fns(sqe.Cancel)},
		{"prep_cancel64", fns(sqe.Cancel)}, // user_data is a uint64 either way
		{"prep_cancel_fd", fns(sqe.CancelFd, sqe.CancelSlot)},
		{"prep_close", fns(sqe.Close)},
		{"prep_close_direct", fns(sqe.CloseDirect)},
		{"prep_cmd_discard", fns(sqe.CmdDiscard)},
		{"prep_cmd_getsockname", fns(sqe.Getsockname)},
		{"prep_cmd_sock", fns(sqe.SockInq, sqe.SockOutq, sqe.Getsockopt, sqe.Setsockopt, sqe.TxTimestamp, sqe.Getsockname)},
		{"prep_cmd_zone_reset_all", fns(sqe.CmdZoneResetAll)},
		{"prep_connect", fns(sqe.Connect[unix.RawSockaddrInet4])},
		{"prep_epoll_ctl", fns(sqe.EpollCtl)},
		{"prep_epoll_wait", fns(sqe.EpollWait)},
		{"prep_fadvise", fns(sqe.Fadvise)},
		{"prep_fadvise64", fns(sqe.Fadvise64)},
		{"prep_fallocate", fns(sqe.Fallocate)},
		{"prep_fgetxattr", fns(sqe.Fgetxattr)},
		{"prep_files_update", fns(sqe.FilesUpdate)},
		{"prep_fixed_fd_install", fns(sqe.InstallFd)},
		{"prep_fsetxattr", fns(sqe.Fsetxattr)},
		{"prep_fsync", fns(sqe.Fsync)},
		{"prep_ftruncate", fns(sqe.Ftruncate)},
		{"prep_futex_wait", fns(sqe.FutexWait)},
		{"prep_futex_waitv", fns(sqe.FutexWaitv)},
		{"prep_futex_wake", fns(sqe.FutexWake)},
		{"prep_getxattr", fns(sqe.Getxattr)},
		{"prep_link", fns(sqe.Linkat)}, // with unix.AT_FDCWD
		{"prep_link_timeout", fns(sqe.LinkTimeout, sqe.LinkTimeoutAbs)},
		{"prep_linkat", fns(sqe.Linkat)},
		{"prep_listen", fns(sqe.Listen)},
		{"prep_madvise", fns(sqe.Madvise)},
		{"prep_madvise64", fns(sqe.Madvise64)},
		{"prep_mkdir", fns(sqe.Mkdirat)}, // with unix.AT_FDCWD
		{"prep_mkdirat", fns(sqe.Mkdirat)},
		{"prep_msg_ring", fns(sqe.MsgRing)},
		{"prep_msg_ring_cqe_flags", fns(sqe.MsgRingCQEFlags)},
		{"prep_msg_ring_fd", fns(sqe.MsgRingFd)},
		{"prep_msg_ring_fd_alloc", fns(sqe.MsgRingFd)}, // dst sqe.AllocSlot
		{"prep_multishot_accept", fns(sqe.AcceptMultishot)},
		{"prep_multishot_accept_direct", fns(sqe.AcceptMultishotDirect)},
		{"prep_nop", fns(sqe.Nop, sqe.NopResult)},
		{"prep_nop128", fns(sqe.Nop128)},
		{"prep_open", fns(sqe.Openat)}, // with unix.AT_FDCWD
		{"prep_open_direct", fns(sqe.OpenatDirect)},
		{"prep_openat", fns(sqe.Openat)},
		{"prep_openat2", fns(sqe.Openat2)},
		{"prep_openat2_direct", fns(sqe.Openat2Direct)},
		{"prep_openat_direct", fns(sqe.OpenatDirect)},
		{"prep_pipe", fns(sqe.Pipe)},
		{"prep_pipe_direct", fns(sqe.PipeDirect)},
		{"prep_poll_add", fns(sqe.PollAdd)},
		{"prep_poll_mask", fns(sqe.PollAdd)}, // the mask's byte order: this package is little-endian only, PollAdd takes it as is
		{"prep_poll_multishot", fns(sqe.PollMultishot)},
		{"prep_poll_remove", fns(sqe.PollRemove)},
		{"prep_poll_update", fns(sqe.PollUpdate)},
		{"prep_provide_buffers", fns(sqe.ProvideBuffers)},
		{"prep_read", fns(sqe.Read)},
		{"prep_read_fixed", fns(sqe.ReadFixed)},
		{"prep_read_multishot", fns(sqe.ReadMultishot)},
		{"prep_readv", fns(sqe.Readv)},
		{"prep_readv2", fns(sqe.Readv2)},
		{"prep_readv_fixed", fns(sqe.ReadvFixed)},
		{"prep_recv", fns(sqe.Recv)},
		{"prep_recv_multishot", fns(sqe.RecvMultishot)},
		{"prep_recvmsg", fns(sqe.Recvmsg)},
		{"prep_recvmsg_multishot", fns(sqe.RecvmsgMultishot)},
		{"prep_remove_buffers", fns(sqe.RemoveBuffers)},
		{"prep_rename", fns(sqe.Renameat)}, // with unix.AT_FDCWD
		{"prep_renameat", fns(sqe.Renameat)},
		{"prep_rw", fns(sqe.RW)},
		{"prep_send", fns(sqe.Send)},
		{"prep_send_bundle", fns(sqe.SendBundle)},
		{"prep_send_set_addr", fns(sqe.SendSetAddr[unix.RawSockaddrInet4])},
		{"prep_send_zc", fns(sqe.SendZC, sqe.SendZCTo[unix.RawSockaddrInet4])},
		{"prep_send_zc_fixed", fns(sqe.SendZCFixed)},
		{"prep_sendmsg", fns(sqe.Sendmsg)},
		{"prep_sendmsg_zc", fns(sqe.SendmsgZC)},
		{"prep_sendmsg_zc_fixed", fns(sqe.SendmsgZCFixed)},
		{"prep_sendto", fns(sqe.SendTo[unix.RawSockaddrInet4])},
		{"prep_setxattr", fns(sqe.Setxattr)},
		{"prep_shutdown", fns(sqe.Shutdown)},
		{"prep_socket", fns(sqe.Socket)},
		{"prep_socket_direct", fns(sqe.SocketDirect)},
		{"prep_socket_direct_alloc", fns(sqe.SocketDirect)}, // slot sqe.AllocSlot
		{"prep_splice", fns(sqe.Splice)},
		{"prep_statx", fns(sqe.Statx)},
		{"prep_symlink", fns(sqe.Symlinkat)}, // with unix.AT_FDCWD
		{"prep_symlinkat", fns(sqe.Symlinkat)},
		{"prep_sync_file_range", fns(sqe.SyncFileRange)},
		{"prep_tee", fns(sqe.Tee)},
		{"prep_timeout", fns(sqe.Timeout, sqe.TimeoutAbs, sqe.TimeoutAt)},
		{"prep_timeout_remove", fns(sqe.TimeoutRemove)},
		{"prep_timeout_update", fns(sqe.TimeoutUpdate, sqe.LinkTimeoutUpdate)},
		{"prep_unlink", fns(sqe.Unlinkat)}, // with unix.AT_FDCWD
		{"prep_unlinkat", fns(sqe.Unlinkat)},
		{"prep_uring_cmd", fns(sqe.UringCmd, sqe.UringCmdSQE128)},
		{"prep_uring_cmd128", fns(sqe.UringCmd128)},
		{"prep_waitid", fns(sqe.Waitid)},
		{"prep_write", fns(sqe.Write)},
		{"prep_write_fixed", fns(sqe.WriteFixed)},
		{"prep_writev", fns(sqe.Writev)},
		{"prep_writev2", fns(sqe.Writev2)},
		{"prep_writev_fixed", fns(sqe.WritevFixed)},
	}
}

// registerCalls: liburing's register API (io_uring_register_* and
// io_uring_unregister_*) and the calls that register or configure a live
// ring.
func registerCalls() []counterpart {
	return []counterpart{
		{"register_bpf_filter", fns(reg.RegisterBPFFilter)},
		{"register_bpf_filter_task", fns(reg.RegisterTaskBPFFilter)},
		{"register_buf_ring", fns(reg.RegisterBufRing, reg.NewBufPool)},
		{"register_buffers", fns(reg.RegisterBuffers)},
		{"register_buffers_sparse", fns(reg.RegisterBuffers)}, // BufferConfig.Sparse
		{"register_buffers_tags", fns(reg.RegisterBuffers)},   // BufferConfig.Tags
		{"register_buffers_update_tag", fns((*reg.Buffers).UpdateTagged, (*reg.Buffers).Update)},
		{"register_clock", fns(reg.SetClock)},
		{"register_eventfd", fns(reg.RegisterEventfd)},
		{"register_eventfd_async", fns(reg.RegisterEventfd)}, // async true
		{"register_file_alloc_range", fns((*reg.Files).SetAllocRange)},
		{"register_files", fns(reg.RegisterFiles)},
		{"register_files_sparse", fns(reg.RegisterSparseFiles)},
		{"register_files_tags", fns(reg.RegisterFiles)}, // tags
		{"register_files_update", fns((*reg.Files).Update)},
		{"register_files_update_tag", fns((*reg.Files).Update)}, // tags
		{"register_ifq", fns(reg.RegisterZcrxIfq)},
		{"register_iowq_aff", fns(reg.SetIOWQAffinity)},
		{"register_iowq_max_workers", fns(reg.SetIOWQMaxWorkers, reg.IOWQMaxWorkers)},
		{"register_napi", fns(reg.RegisterNAPI, reg.AddNAPIID, reg.DelNAPIID)},
		{"register_personality", fns(reg.RegisterPersonality)},
		{"register_probe", fns(reg.Probe)},
		{"register_query", fns(reg.QueryOpcodes, reg.QueryZcrx, reg.QuerySCQ, reg.QueryZcrxEvent)},
		{"register_region", fns(reg.RegisterRegion, reg.RegisterWaitRegion)},
		{"register_restrictions", fns(reg.RegisterRestrictions, reg.NewRestricted)},
		{"register_ring_fd", fns(reg.RegisterRingFd, uring.WithRegisteredRingFd)},
		{"register_sync_cancel", fns(reg.SyncCancel)},
		{"register_sync_msg", fns(reg.SendMsgRing, (*uring.Ring).PostCQE, (*uring.Ring).PostWake)},
		{"register_wait_reg", fns(reg.RegisterWaitRegion)}, // liburing's is a stub now: regions replaced it
		{"register_zcrx_ctrl", fns(reg.ZcrxFlushRQ, reg.ZcrxExport)},
		{"unregister_buf_ring", fns((*reg.BufRing).Unregister, (*reg.BufPool).Close)},
		{"unregister_buffers", fns((*reg.Buffers).Unregister)},
		{"unregister_eventfd", fns(reg.UnregisterEventfd)},
		{"unregister_files", fns((*reg.Files).Unregister)},
		{"unregister_iowq_aff", fns(reg.ClearIOWQAffinity)},
		{"unregister_napi", fns(reg.UnregisterNAPI)},
		{"unregister_personality", fns(reg.UnregisterPersonality)},
		{"unregister_ring_fd", fns(reg.UnregisterRingFd)},
		{"clone_buffers", fns((*reg.Buffers).Clone)},
		{"clone_buffers_offset", fns((*reg.Buffers).CloneRange, (*reg.Buffers).CloneRangeInto)},
		{"close_ring_fd", fns((*uring.Ring).CloseRingFd)},
		{"ring_dontfork", fns((*uring.Ring).DontFork)},
		{"set_iowait", fns((*uring.Ring).SetIOWait)},
		{"enable_rings", fns((*uring.Ring).Enable, reg.EnableRings)},
		{"resize_rings", fns((*uring.Ring).Resize, reg.Resize)},
		{"get_probe", fns(uring.Probe, uring.CheckOp)},
		{"get_probe_ring", fns(reg.Probe)},
		{"setup_buf_ring", fns(reg.RegisterBufRing, reg.NewBufPool)},
		{"free_buf_ring", fns((*reg.BufRing).Unregister, (*reg.BufPool).Close)},
	}
}

// submitWaitCalls: setting a ring up and tearing it down, the raw
// syscalls, submitting and waiting.
func submitWaitCalls() []counterpart {
	return []counterpart{
		{"queue_init", fns(uring.New)},
		{"queue_init_params", fns(uring.New, uring.WithFlags, uring.WithCQSize, uring.WithSQPoll)},
		{"queue_init_mem", fns(uring.WithNoMmap)}, // the memory is this package's own
		{"queue_exit", fns((*uring.Ring).Close)},
		{"setup", fns(sys.Setup)},
		{"enter", fns(sys.Enter)},
		{"enter2", fns(sys.EnterArg, sys.EnterRegWait)},
		{"register", fns(sys.Register[byte], (*uring.Ring).UseTarget)},
		{"submit", fns((*uring.Ring).Submit)},
		{"submit_and_wait", fns((*uring.Ring).SubmitAndWait)},
		{"submit_and_wait_timeout", fns((*uring.Ring).SubmitAndWaitTimeout, (*uring.Ring).SubmitAndWaitSigmask)},
		{"submit_and_wait_min_timeout", fns((*uring.Ring).WaitCQEsTimeout)}, // a wait submits what is queued
		{"submit_and_wait_reg", fns((*uring.Ring).SubmitAndWaitReg)},
		{"submit_and_get_events", fns((*uring.Ring).Submit, (*uring.Ring).FlushOverflow)},
		{"get_events", fns((*uring.Ring).FlushOverflow)},
		{"wait_cqe", fns((*uring.Ring).WaitCQE)},
		{"wait_cqe_nr", fns((*uring.Ring).WaitCQEs)},
		{"wait_cqe_timeout", fns((*uring.Ring).WaitCQETimeout)},
		{"wait_cqes", fns((*uring.Ring).WaitCQEsTimeout, (*uring.Ring).WaitCQEsSigmask)},
		{"wait_cqes_min_timeout", fns((*uring.Ring).WaitCQEsTimeout)},
		{"peek_cqe", fns((*uring.Ring).PeekCQE)},
		{"peek_batch_cqe", fns((*uring.Ring).PeekBatch, (*uring.Ring).Reap)},
		{"sqring_wait", fns((*uring.Ring).WaitSQSpace)},
	}
}

// The sizes of liburing's lists as this test was written; a change makes
// the test say which list to look at again.
const (
	liburingPrepHelpers   = 105
	liburingRegisterCalls = 49
	liburingSubmitWait    = 23
)

func TestLiburingCoverage(t *testing.T) {
	for _, group := range []struct {
		name string
		list []counterpart
		want int
	}{
		{"prep helpers", prepHelpers(), liburingPrepHelpers},
		{"register/ring calls", registerCalls(), liburingRegisterCalls},
		{"submit/wait calls", submitWaitCalls(), liburingSubmitWait},
	} {
		seen := map[string]bool{}
		covered := 0
		for _, e := range group.list {
			require.False(t, seen[e.c], "io_uring_%s is listed twice", e.c)
			seen[e.c] = true
			var names []string
			for _, f := range e.goFns {
				if n := nameOf(f); n != "" {
					names = append(names, n)
				}
			}
			if len(names) == 0 || len(names) != len(e.goFns) {
				t.Errorf("io_uring_%s has no Go counterpart (or a nil one)", e.c)
				continue
			}
			covered++
			t.Logf("io_uring_%-32s %s", e.c, strings.Join(names, ", "))
		}
		require.Equal(t, group.want, len(group.list), "the %s list changed size: update the count here and in the README", group.name)
		t.Logf("%s: %d of %d", group.name, covered, len(group.list))
	}
}

// TestLiburingHeaderListed compares the lists with a liburing.h, when one
// is at hand ($URING_LIBURING_H, or the system's): every io_uring_prep_*
// and io_uring_(un)register_* it declares must be listed, so a helper a
// newer liburing adds fails here until it has a counterpart. Without a
// header it logs that and checks nothing.
func TestLiburingHeaderListed(t *testing.T) {
	path := os.Getenv("URING_LIBURING_H")
	if path == "" {
		path = "/usr/include/liburing.h"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Logf("no liburing.h to compare with (%v): set URING_LIBURING_H=.../liburing.h", err)
		return
	}
	listed := map[string]bool{}
	for _, l := range [][]counterpart{prepHelpers(), registerCalls(), submitWaitCalls()} {
		for _, e := range l {
			listed[e.c] = true
		}
	}
	var missing []string
	for _, m := range regexp.MustCompile(`\bio_uring_((?:prep|register|unregister)_[a-z0-9_]+)\s*\(`).FindAllStringSubmatch(string(b), -1) {
		if !listed[m[1]] {
			missing = append(missing, "io_uring_"+m[1])
		}
	}
	sort.Strings(missing)
	missing = compact(missing)
	require.Empty(t, missing, "%s declares calls the coverage lists lack", path)
}

func compact(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
