package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/rigel-db/rigel/gpu/cuda"
)

// cmdDoctor reports the GPU, driver, compiler, memory and measured
// bandwidths. Without a GPU it says so in one line and succeeds: that is a
// valid state of the machine, not an error of the command.
func cmdDoctor(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	d, err := cuda.Open()
	if err != nil {
		fmt.Println("rigel doctor: no GPU: " + oneLine(err.Error()))
		return nil
	}
	defer d.Close()
	info := d.Info()
	gib := func(n int64) string { return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30)) }
	fmt.Printf("GPU:             %s (%s, %d SMs)\n", info.Model, info.Arch, info.Multiprocs)
	fmt.Printf("driver:          %s\n", info.Driver)
	fmt.Printf("NVRTC:           %s\n", info.Compiler)
	fmt.Printf("memory:          %s free of %s\n", gib(info.FreeMemory), gib(info.TotalMemory))
	fmt.Printf("kernel cache:    %s\n", info.KernelCache)
	if bw, err := d.MeasureCopyBandwidth(); err != nil {
		fmt.Printf("device copy:     failed: %s\n", oneLine(err.Error()))
	} else {
		fmt.Printf("device copy:     %.0f GB/s (read + write)\n", bw/1e9)
	}
	if bw, err := d.MeasureUploadBandwidth(); err != nil {
		fmt.Printf("pinned upload:   failed: %s\n", oneLine(err.Error()))
	} else {
		fmt.Printf("pinned upload:   %.1f GB/s\n", bw/1e9)
	}
	return nil
}
