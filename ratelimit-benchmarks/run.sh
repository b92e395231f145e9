#!/usr/bin/env bash
# Runs every benchmark against redis-servers it starts on 127.0.0.1 and writes BENCHMARKS.md and
# docs/benchmarks.png at the repository root; about 100 minutes on 2 cores, of which the steady state
# with pinned CPUs takes 25 (STEADY=0 leaves it out) and the scripts' instruction counts under
# callgrind 5 (left out when valgrind is not installed) and what a rule costs an HTTP request 35 (HTTP_COST=0
# leaves it out). QUICK=1 tries the whole run out in a few minutes
# (its figures mean nothing). Raw results: ratelimit-benchmarks/target/bench/.
set -euo pipefail
cd "$(dirname "$0")/.."

start=$(date +%s)
load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
out=ratelimit-benchmarks/target/bench
jar=ratelimit-benchmarks/target/benchmarks.jar
sample_jar=sample-app/target/sample-app-0.1.0-SNAPSHOT.jar
webflux_jar=sample-webflux/target/sample-webflux-0.1.0-SNAPSHOT.jar

if [[ "${QUICK:-0}" == "1" ]]; then
  jmh_timing=(-f 1 -wi 1 -w 1s -i 2 -r 1s)
  quick=(-Dbench.quick=true)
else
  jmh_timing=(-f 1 -wi 2 -w 2s -i 5 -r 2s)
  quick=()
fi

echo "== build (benchmarks profile)"
./mvnw -B -q -Pbenchmarks -pl ratelimit-benchmarks,sample-app,sample-webflux -am package -DskipTests

rm -rf "$out"
mkdir -p "$out"
jmh=(java -jar "$jar" "${jmh_timing[@]}" -jvmArgsAppend "-Dbench.out=$out")

for threads in 1 8 64; do
  echo "== JMH, allowed path, 10,000 keys, $threads thread(s)"
  "${jmh[@]}" RateLimiterBenchmarks -p keys=10000 -t "$threads" -rf json -rff "$out/jmh-t$threads.json" \
    >> "$out/jmh.log" 2>&1
done

echo "== JMH, 1,000 to 1,000,000 keys, 64 threads (first pass)"
"${jmh[@]}" RateLimiterBenchmarks -p system=fixed-window,token-bucket -p keys=1000,100000,1000000 -t 64 \
  -rf json -rff "$out/jmh-keys.json" >> "$out/jmh.log" 2>&1

echo "== JMH, our limiter's own CPU per decision, Redis replaced by a canned reply"
"${jmh[@]}" LimiterOverheadBenchmarks -t 1 -rf json -rff "$out/overhead.json" >> "$out/jmh.log" 2>&1

echo "== JMH, a slot of work in flight and a reserve/settle pair next to a plain decision, 1 and 8 threads"
for threads in 1 8; do
  "${jmh[@]}" NewKindsBenchmarks -t "$threads" -rf json -rff "$out/new-kinds-t$threads.json" >> "$out/jmh.log" 2>&1
done

echo "== JMH, 1,000 to 1,000,000 keys, 64 threads (second pass, pooled with the first)"
java -jar "$jar" "${jmh_timing[@]}" -jvmArgsAppend "-Dbench.out=$out -Dbench.pass=-pass2" RateLimiterBenchmarks \
  -p system=fixed-window,token-bucket -p keys=1000,100000,1000000 -t 64 \
  -rf json -rff "$out/keys-pass2.json" >> "$out/jmh.log" 2>&1

echo "== physical limit, async API, hot key, memory, HTTP (servlet, WebFlux)"
java "${quick[@]}" -cp "$jar" dev.ratelimit.benchmarks.Measurements "$out" "$sample_jar" "$webflux_jar" 2>&1 \
  | tee "$out/measurements.log" | grep '^\[measurements\]'

if [[ "${HTTP_COST:-1}" == "1" ]]; then
  echo "== what a rule costs an HTTP request: minimal servlet, WebFlux and gateway apps on CPU 0, Redis and the load on CPU 1"
  taskset -c 1 java "${quick[@]}" -Dapp.cpu=0 -cp "$jar" dev.ratelimit.benchmarks.HttpCost "$out/http-cost" \
    ratelimit-benchmarks/target/http-apps.classpath ratelimit-benchmarks/target/classes "$jar" > "$out/http-cost.log" 2>&1
fi

if [[ "${STEADY:-1}" == "1" ]]; then
  echo "== steady state: redis-server on CPU 1, this JVM on CPU 0, 8 and 64 threads, every system"
  if [[ "${QUICK:-0}" == "1" ]]; then steady_timing=(-Dwarmup=2s -Dmeasure=2s); else steady_timing=(-Dwarmup=30s -Dmeasure=15s); fi
  taskset -c 0 java -Dredis.cpu=1 -Dthreads=8,64 "${steady_timing[@]}" -Dsteady.out="$out/steady-state.md" \
    -cp "$jar" dev.ratelimit.benchmarks.SteadyState > "$out/steady-state.log" 2>&1
fi

if command -v valgrind > /dev/null && command -v callgrind_control > /dev/null; then
  echo "== what each script costs Redis inside it, in instructions (callgrind; about 5 minutes)"
  if [[ "${QUICK:-0}" == "1" ]]; then cost_calls=200; else cost_calls=2000; fi
  java -Dinstructions=true -Dgroups=1,20 -Dscript-cost.out="$out/script-cost.md" -cp "$jar" \
    dev.ratelimit.benchmarks.ScriptCost "$cost_calls" > "$out/script-cost.log" 2>&1
else
  echo "== no valgrind on the PATH: the instructions each script costs Redis are left out"
fi

echo "== report"
java -Dbench.loadBefore="$load_before" -cp "$jar" dev.ratelimit.benchmarks.Report "$out" . $(( $(date +%s) - start ))
