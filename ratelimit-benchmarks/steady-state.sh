#!/usr/bin/env bash
# The allowed path in a steady state (dev.ratelimit.benchmarks.SteadyState): this JVM pinned to
# JVM_CPUS (default 0), each redis-server to REDIS_CPU (default 1), 30 s of warm-up and 30 s measured
# per system, about a minute per system on a quiet machine. Arguments are JVM options, for example
#   ratelimit-benchmarks/steady-state.sh -Dsystems=fixed-window,lettuce-evalsha -Dthreads=8
set -euo pipefail
cd "$(dirname "$0")/.."

./mvnw -B -q -Pbenchmarks -pl ratelimit-benchmarks -am package -DskipTests
exec taskset -c "${JVM_CPUS:-0}" java -Dredis.cpu="${REDIS_CPU:-1}" "$@" \
  -cp ratelimit-benchmarks/target/benchmarks.jar dev.ratelimit.benchmarks.SteadyState
