package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/pure-uring/uring"
)

func init() {
	register(command{
		name:    "probe",
		summary: "show what this kernel's io_uring supports (opcodes, flags, limits, polled I/O)",
		run:     runProbe,
	})
}

// probeSchema is the version of the --json schema: 2 added each item's
// c_name and the capabilities list.
const probeSchema = 2

// probeReport is the --json output of `uringctl probe`, a printing of
// uring.Probe. Schema (version 2): every list is complete and ordered by
// value; an item is supported, or not with the reason, or its probe failed
// (error set, supported false).
type probeReport struct {
	Schema          int                 `json:"schema"`                // 2
	Kernel          string              `json:"kernel"`                // uname -r
	Available       bool                `json:"available"`             // io_uring usable by this process
	Unavailable     string              `json:"unavailable,omitempty"` // why not (sysctl, seccomp, no kernel support)
	IOUringDisabled *int                `json:"io_uring_disabled"`     // kernel.io_uring_disabled; null before 6.6
	Limits          *uring.Limits       `json:"limits"`                // null when unavailable or the probe failed
	Opcodes         []probeItem         `json:"opcodes"`               // IORING_OP_* 0..64, from REGISTER_PROBE
	SetupFlags      []probeItem         `json:"setup_flags"`           // IORING_SETUP_*, try and see
	Features        []probeItem         `json:"features"`              // IORING_FEAT_* reported by setup
	RegisterOpcodes []probeItem         `json:"register_opcodes"`      // IORING_REGISTER_*, try and see
	EnterFlags      []probeItem         `json:"enter_flags"`           // IORING_ENTER_*, try and see
	Capabilities    []probeItem         `json:"capabilities"`          // uring.Capability: flags of one opcode or registration, try and see
	BlockDevices    []uring.BlockDevice `json:"block_devices"`         // polled I/O per /sys/block device
	TaskRuntime     runtimeChoice       `json:"task_runtime"`          // the backend task.NewRuntime would run on here
	Errors          []string            `json:"errors,omitempty"`      // probes that failed
}

// runtimeChoice is the task layer's backend here and why (task.Backend).
type runtimeChoice struct {
	Kind   string `json:"kind"`   // "io_uring" or "fallback"
	Reason string `json:"reason"` // why
}

// probeItem is one opcode, flag or capability.
type probeItem struct {
	Value     uint64 `json:"value"`            // opcode number, flag bit or capability number
	Name      string `json:"name"`             // C name without its prefix: "READ", "SQPOLL"; a capability's short name: "multishot accept"
	CName     string `json:"c_name"`           // the kernel's full name: "IORING_OP_READ", "IORING_ACCEPT_MULTISHOT"
	Since     string `json:"since,omitempty"`  // Linux release that added it
	Supported bool   `json:"supported"`        // the kernel has it
	Reason    string `json:"reason,omitempty"` // why not, when not supported
	Error     string `json:"error,omitempty"`  // the probe failed: supported is unknown
}

func probeUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `usage: uringctl probe [--json]

Shows what the running kernel's io_uring supports: the kernel release,
kernel.io_uring_disabled, the largest SQ and CQ, every opcode (from
IORING_REGISTER_PROBE), every setup flag, register opcode and enter flag
(each tried on a small ring made for the purpose), the feature bits, the
capabilities that are flags of one opcode or registration (multishot
accept, buffer ring flags, ...; each tried), and whether each block device
can do polled I/O (IORING_SETUP_IOPOLL). Every item says the Linux release
that added it.

Exit status: 0 ok, 1 error or bad flags, 2 io_uring unavailable here.

flags:
`)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

func runProbe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("probe", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print the report as JSON (schema: probeReport in cmd/uringctl/probe.go)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			probeUsage(stdout, fs)
			return 0
		}
		fmt.Fprintf(stderr, "uringctl probe: %v (see uringctl probe --help)\n", err)
		return 1
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "uringctl probe: unexpected argument %q (see uringctl probe --help)\n", fs.Arg(0))
		return 1
	}

	rep, code := collectProbe()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "uringctl probe: %v\n", err)
			return 1
		}
	} else if err := writeProbeTable(stdout, rep); err != nil {
		fmt.Fprintf(stderr, "uringctl probe: %v\n", err)
		return 1
	}
	if rep.Unavailable != "" {
		fmt.Fprintf(stderr, "uringctl probe: io_uring unavailable: %s\n", rep.Unavailable)
	}
	for _, e := range rep.Errors {
		fmt.Fprintf(stderr, "uringctl probe: %s\n", e)
	}
	return code
}

// collectProbe runs every probe (uring.Probe); the code is 0, 1 (a probe
// failed) or 2 (io_uring unavailable).
func collectProbe() (probeReport, int) {
	p, _ := uring.Probe()
	rep := probeReport{
		Schema:          probeSchema,
		Kernel:          p.Kernel,
		Limits:          p.Limits,
		Opcodes:         items(p.Opcodes),
		SetupFlags:      items(p.SetupFlags),
		Features:        items(p.Features),
		RegisterOpcodes: items(p.RegisterOps),
		EnterFlags:      items(p.EnterFlags),
		Capabilities:    items(p.Capabilities),
		BlockDevices:    p.BlockDevices,
		TaskRuntime:     taskRuntime(),
	}
	if rep.BlockDevices == nil {
		rep.BlockDevices = []uring.BlockDevice{}
	}
	if p.IOUringDisabled >= 0 {
		v := p.IOUringDisabled
		rep.IOUringDisabled = &v
	}
	if err := p.Unavailable; err != nil {
		if errors.Is(err, uring.ErrUnsupported) {
			rep.Unavailable = err.Error()
			return rep, 2
		}
		rep.Errors = append(rep.Errors, err.Error())
		return rep, 1
	}
	rep.Available = true
	for _, err := range p.Errors {
		rep.Errors = append(rep.Errors, err.Error())
	}
	if len(rep.Errors) > 0 {
		return rep, 1
	}
	return rep, 0
}

// items prints the probe's answers; never nil, so that JSON has [].
func items(in []uring.ProbeItem) []probeItem {
	out := make([]probeItem, 0, len(in))
	for _, it := range in {
		pi := probeItem{Value: it.Value, Name: it.Name, CName: it.CName, Since: it.Since, Supported: it.Supported}
		switch {
		case it.Failed():
			pi.Error = it.Err.Error()
		case it.Err != nil:
			pi.Reason = it.Err.Error()
		}
		out = append(out, pi)
	}
	return out
}

func writeProbeTable(w io.Writer, rep probeReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	disabled := "no such sysctl (before 6.6)"
	if rep.IOUringDisabled != nil {
		disabled = strconv.Itoa(*rep.IOUringDisabled)
	}
	avail := "available"
	if !rep.Available {
		avail = "UNAVAILABLE: " + rep.Unavailable
	}
	fmt.Fprintf(tw, "kernel\t%s\n", rep.Kernel)
	fmt.Fprintf(tw, "io_uring\t%s\n", avail)
	fmt.Fprintf(tw, "kernel.io_uring_disabled\t%s\n", disabled)
	fmt.Fprintf(tw, "task runtime\t%s (%s)\n", rep.TaskRuntime.Kind, rep.TaskRuntime.Reason)
	if rep.Limits != nil {
		fmt.Fprintf(tw, "max SQ entries\t%d\n", rep.Limits.MaxSQEntries)
		fmt.Fprintf(tw, "max CQ entries\t%d\n", rep.Limits.MaxCQEntries)
	}
	section := func(title, valueHead string, items []probeItem, hex bool) {
		if len(items) == 0 {
			return
		}
		n := 0
		for _, it := range items {
			if it.Supported {
				n++
			}
		}
		fmt.Fprintf(tw, "\n%s (%d of %d supported)\n", title, n, len(items))
		fmt.Fprintf(tw, "%s\tNAME\tSINCE\tSUPPORTED\n", valueHead)
		for _, it := range items {
			v := strconv.FormatUint(it.Value, 10)
			if hex || it.Value >= 1<<16 {
				v = "0x" + strconv.FormatUint(it.Value, 16)
			}
			yes := "yes"
			switch {
			case it.Error != "":
				yes = "error: " + it.Error
			case !it.Supported:
				yes = "no"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v, it.Name, it.Since, yes)
		}
	}
	section("opcodes", "OP", rep.Opcodes, false)
	section("setup flags", "BIT", rep.SetupFlags, true)
	section("features", "BIT", rep.Features, true)
	section("register opcodes", "OP", rep.RegisterOpcodes, false)
	section("enter flags", "BIT", rep.EnterFlags, true)
	section("capabilities", "CAP", rep.Capabilities, false)
	fmt.Fprintf(tw, "\npolled I/O (IORING_SETUP_IOPOLL)\nDEVICE\tPOLLED\tREASON\n")
	for _, d := range rep.BlockDevices {
		yes := "no"
		if d.Polled {
			yes = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", d.Name, yes, d.Reason)
	}
	return tw.Flush()
}
