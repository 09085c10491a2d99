cd /work/main
echo "lesson,build,seconds" > /tmp/gtime2.csv
for round in 1; do
for l in 05 06 07 08 09 10 11 12; do
 for b in old new; do
  bin=target/release/lab; [ $b = old ] && bin=/work/old/target/release/lab
  s=$(date +%s.%N); $bin grade $l --kernels solutions > /tmp/gt2-$l-$b.txt 2>&1; e=$(date +%s.%N)
  echo "$l,$b,$(echo "$e - $s" | bc)" >> /tmp/gtime2.csv
 done
done
done
