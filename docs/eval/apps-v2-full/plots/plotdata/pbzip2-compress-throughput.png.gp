set terminal pngcairo size 1100,680 font 'Sans,10'
set output "results/20261204-apps-full/apps/plots/pbzip2-compress-throughput.png"
set title "pbzip2-compress: throughput relative to glibc (higher is better)" noenhanced
set ylabel "throughput / glibc's (per-round ratio, 95 % interval)" noenhanced
set logscale y 2
set yrange [0.557091:1.33775]
set ytics ("0.67" 0.67, "0.8" 0.8, "0.9" 0.9, "1" 1, "1.1" 1.1, "1.25" 1.25)
set grid ytics lc rgb '#dddddd'
set key outside right top noenhanced
set style data histograms
set style histogram errorbars gap 1.5 lw 1
set bmargin at screen 0.218
set xtics noenhanced rotate by -20
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead lc rgb 'black' dt 2 lw 1.5 front
set label 901 "guest (QEMU, 2 CPUs, on AMD EPYC); kernel 6.1.192; clocksource tsc; running-state provider vdso; 5 rounds x 1.2 s; rev 423c9970b58f+dirty; 2026-12-04" at screen 0.01, screen 0.025 font ',9' noenhanced
set label 902 "host (AMD EPYC, 2 CPUs); kernel 6.18.44-fc-v1252; clocksource tsc; running-state provider bpf; 5 rounds x 0.36 s; rev 423c9970b58f+dirty; 2026-12-04" at screen 0.01, screen 0.055 font ',9' noenhanced
plot "results/20261204-apps-full/apps/plots/plotdata/pbzip2-compress-throughput.dat" using 2:3:4:xtic(1) lc rgb "#d62728" fs solid 0.9 border lc rgb 'black' title "uspin-user-adaptive (proposal)", \
  "results/20261204-apps-full/apps/plots/plotdata/pbzip2-compress-throughput.dat" using 5:6:7 lc rgb "#9467bd" fs solid 0.55 noborder title "uspin-kernel-adaptive", \
  "results/20261204-apps-full/apps/plots/plotdata/pbzip2-compress-throughput.dat" using 8:9:10 lc rgb "#b07cc6" fs solid 0.55 noborder title "uspin-spin", \
  "results/20261204-apps-full/apps/plots/plotdata/pbzip2-compress-throughput.dat" using 11:12:13 lc rgb "#c5b0d5" fs solid 0.55 noborder title "uspin-block", \
  "results/20261204-apps-full/apps/plots/plotdata/pbzip2-compress-throughput.dat" using 14:15:16 lc rgb "#e377c2" fs solid 0.55 noborder title "uspin-user-adaptive@rseq"
