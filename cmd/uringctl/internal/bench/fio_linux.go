//go:build linux

package bench

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
)

// fioReport is the part of fio's --output-format=json this package reads.
type fioReport struct {
	Jobs []struct {
		Error int `json:"error"`
		Read  struct {
			IOPS float64 `json:"iops"`
		} `json:"read"`
	} `json:"jobs"`
}

// fio runs fio --ioengine=io_uring with the same file, block size, queue
// depth, duration and mode, and returns its IOPS.
func (rc rrConfig) fio(bin string, size int64) (sample, error) {
	args := []string{
		"--name=randread", "--filename=" + rc.path, "--rw=randread", "--bs=4k",
		"--ioengine=io_uring", "--iodepth=" + strconv.Itoa(rc.qd),
		"--size=" + strconv.FormatInt(size, 10), "--time_based",
		"--runtime=" + strconv.FormatInt(max(rc.d.Milliseconds(), 1), 10) + "ms",
		"--norandommap", "--randrepeat=0", "--invalidate=0", "--output-format=json",
	}
	if rc.mode != "buffered" {
		args = append(args, "--direct=1")
	}
	switch rc.mode {
	case "fixed":
		args = append(args, "--fixedbufs", "--registerfiles")
	case "iopoll":
		args = append(args, "--fixedbufs", "--registerfiles", "--hipri")
	case "sqpoll":
		args = append(args, "--fixedbufs", "--registerfiles", "--sqthread_poll")
	}
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		return sample{}, fmt.Errorf("fio: %w", err)
	}
	var rep fioReport
	if err := json.Unmarshal(out, &rep); err != nil {
		return sample{}, fmt.Errorf("fio: parsing its JSON: %w", err)
	}
	if len(rep.Jobs) == 0 || rep.Jobs[0].Error != 0 {
		return sample{}, fmt.Errorf("fio: no job result in its JSON")
	}
	return sample{v: rep.Jobs[0].Read.IOPS}, nil
}

func lookPath(name string) (string, error) { return exec.LookPath(name) }
