#!/usr/bin/env bash
# CPU seconds per 1,000 nvidia-smi samples: streaming (one -lms child) versus fork-per-sample, same run, same fake.
# Prints each round and the median ratio; writes collectors/target/benchmarks/nvidia-smi-cpu.txt.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mvn -B -q install -DskipTests -pl collectors -am
mvn -B test -pl collectors -Dtest=NvidiaSmiCpuBenchmark -Dsurefire.failIfNoSpecifiedTests=false \
  | grep -E 'round|median|Tests run|FAIL'
