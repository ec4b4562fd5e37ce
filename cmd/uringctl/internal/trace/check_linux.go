//go:build linux

package trace

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

const (
	capSysAdmin = 21
	capPerfmon  = 38
	capBPF      = 39

	tracefsMount = "/sys/kernel/tracing"
	vmlinuxBTF   = "/sys/kernel/btf/vmlinux"
)

// checkPrivileges reports which capabilities loading and attaching the
// programs needs and the process lacks: CAP_BPF and CAP_PERFMON, or
// CAP_SYS_ADMIN (root has all of them).
func checkPrivileges() error {
	eff, err := effectiveCaps()
	if err != nil {
		return fmt.Errorf("trace: reading capabilities: %w", err)
	}
	return capsError(eff, os.Geteuid())
}

// capsError explains which capabilities eff lacks, or returns nil.
func capsError(eff uint64, uid int) error {
	has := func(c uint) bool { return eff&(1<<c) != 0 }
	if has(capSysAdmin) || (has(capBPF) && has(capPerfmon)) {
		return nil
	}
	var missing []string
	if !has(capBPF) {
		missing = append(missing, "CAP_BPF")
	}
	if !has(capPerfmon) {
		missing = append(missing, "CAP_PERFMON")
	}
	return fmt.Errorf("trace: loading BPF programs on tracepoints needs root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN); this process (uid %d) lacks %s: %w",
		uid, strings.Join(missing, " and "), ErrUnavailable)
}

func effectiveCaps() (uint64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CapEff:"); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		}
	}
	return 0, errors.New("no CapEff line in /proc/self/status")
}

// tracefsRoot finds the directory holding events/io_uring, mounting tracefs
// at /sys/kernel/tracing when no usual place has it; note says what it did.
func tracefsRoot() (root, note string, err error) {
	candidates := []string{tracefsMount, "/sys/kernel/debug/tracing"}
	for _, c := range candidates {
		if _, err := os.Stat(filepath.Join(c, "events")); err == nil {
			return c, "", checkEvents(c)
		}
	}
	if err := unix.Mount("nodev", tracefsMount, "tracefs", 0, ""); err != nil {
		return "", "", fmt.Errorf("trace: tracefs is not mounted and mounting it at %s failed (%v); run: mount -t tracefs nodev %s: %w",
			tracefsMount, err, tracefsMount, ErrUnavailable)
	}
	return tracefsMount, "mounted tracefs at " + tracefsMount + " (it was not mounted)", checkEvents(tracefsMount)
}

func checkEvents(root string) error {
	if _, err := os.Stat(filepath.Join(root, "events", "io_uring")); err != nil {
		return fmt.Errorf("trace: %s/events has no io_uring group: the kernel lacks io_uring or its tracepoints: %w", root, ErrUnavailable)
	}
	return nil
}

// btfNote says whether kernel BTF is present. The programs read tracepoint
// fields at the offsets tracefs gives, so they do not need BTF.
func btfNote() string {
	if _, err := os.Stat(vmlinuxBTF); err != nil {
		return "kernel BTF (" + vmlinuxBTF + ") not found; not needed: fields are read at the offsets tracefs gives"
	}
	return ""
}

func readFormat(root, event string) (*format, error) {
	f, err := os.Open(filepath.Join(root, "events", "io_uring", event, "format"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseFormat(f)
}
