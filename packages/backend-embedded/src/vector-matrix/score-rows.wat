;; The embedded store's dot-product kernel: out[i] = dot(query, row rows[i] of the matrix), i < n.
;; Rows are `dim` float32s each, row-major from `matrix`; `rows` holds i32 row numbers (n a multiple
;; of 4: the caller pads), `out` gets float32s.
;;
;; Four rows at a time, their loads interleaved: a scan of scattered rows waits on memory, and four
;; rows in flight at once took 7 ms for 26,000 rows of a 1M x 384 matrix where one row at a time took
;; 12 (scratch measurement). Each row sums 8 floats a step in two float32x4 accumulators, then a
;; scalar tail for dims that are not a multiple of 8.
;; Compiled into score-rows.wasm.ts by `pnpm --filter @orgsim/backend-embedded build:kernel`.
(module
  (memory (import "env" "memory") 1)
  (func $sum (param $v v128) (result f32)
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
      (f32.add (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))
  (func (export "scoreRows")
    (param $query i32) (param $matrix i32) (param $dim i32) (param $rows i32) (param $n i32) (param $out i32)
    (local $i i32) (local $rowBytes i32) (local $q i32) (local $blocksEnd i32) (local $end i32) (local $x v128) (local $xs f32)
    (local $p0 i32) (local $p1 i32) (local $p2 i32) (local $p3 i32)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $b0 v128) (local $b1 v128) (local $b2 v128) (local $b3 v128)
    (local $s0 f32) (local $s1 f32) (local $s2 f32) (local $s3 f32)
    (local.set $rowBytes (i32.shl (local.get $dim) (i32.const 2)))
    (local.set $blocksEnd (i32.add (local.get $query) (i32.shl (i32.and (local.get $dim) (i32.const -8)) (i32.const 2))))
    (local.set $end (i32.add (local.get $query) (local.get $rowBytes)))
    (block $done
      (loop $eachFourRows
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $p0 (i32.add (local.get $matrix) (i32.mul (i32.load offset=0 (local.get $rows)) (local.get $rowBytes))))
        (local.set $p1 (i32.add (local.get $matrix) (i32.mul (i32.load offset=4 (local.get $rows)) (local.get $rowBytes))))
        (local.set $p2 (i32.add (local.get $matrix) (i32.mul (i32.load offset=8 (local.get $rows)) (local.get $rowBytes))))
        (local.set $p3 (i32.add (local.get $matrix) (i32.mul (i32.load offset=12 (local.get $rows)) (local.get $rowBytes))))
        (local.set $a0 (v128.const f32x4 0 0 0 0)) (local.set $b0 (v128.const f32x4 0 0 0 0))
        (local.set $a1 (v128.const f32x4 0 0 0 0)) (local.set $b1 (v128.const f32x4 0 0 0 0))
        (local.set $a2 (v128.const f32x4 0 0 0 0)) (local.set $b2 (v128.const f32x4 0 0 0 0))
        (local.set $a3 (v128.const f32x4 0 0 0 0)) (local.set $b3 (v128.const f32x4 0 0 0 0))
        (local.set $s0 (f32.const 0)) (local.set $s1 (f32.const 0)) (local.set $s2 (f32.const 0)) (local.set $s3 (f32.const 0))
        (local.set $q (local.get $query))
        ;; 8 floats a step: the first four into the a accumulators, the next four into the b ones.
        (block $noBlocks
          (br_if $noBlocks (i32.ge_u (local.get $q) (local.get $blocksEnd)))
          (loop $eachBlock
            (local.set $x (v128.load (local.get $q)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (local.get $p0)) (local.get $x))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load (local.get $p1)) (local.get $x))))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load (local.get $p2)) (local.get $x))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load (local.get $p3)) (local.get $x))))
            (local.set $x (v128.load offset=16 (local.get $q)))
            (local.set $b0 (f32x4.add (local.get $b0) (f32x4.mul (v128.load offset=16 (local.get $p0)) (local.get $x))))
            (local.set $b1 (f32x4.add (local.get $b1) (f32x4.mul (v128.load offset=16 (local.get $p1)) (local.get $x))))
            (local.set $b2 (f32x4.add (local.get $b2) (f32x4.mul (v128.load offset=16 (local.get $p2)) (local.get $x))))
            (local.set $b3 (f32x4.add (local.get $b3) (f32x4.mul (v128.load offset=16 (local.get $p3)) (local.get $x))))
            (local.set $p0 (i32.add (local.get $p0) (i32.const 32)))
            (local.set $p1 (i32.add (local.get $p1) (i32.const 32)))
            (local.set $p2 (i32.add (local.get $p2) (i32.const 32)))
            (local.set $p3 (i32.add (local.get $p3) (i32.const 32)))
            (local.set $q (i32.add (local.get $q) (i32.const 32)))
            (br_if $eachBlock (i32.lt_u (local.get $q) (local.get $blocksEnd)))))
        ;; The last dim % 8 floats, one at a time.
        (block $noTail
          (loop $eachFloat
            (br_if $noTail (i32.ge_u (local.get $q) (local.get $end)))
            (local.set $xs (f32.load (local.get $q)))
            (local.set $s0 (f32.add (local.get $s0) (f32.mul (f32.load (local.get $p0)) (local.get $xs))))
            (local.set $s1 (f32.add (local.get $s1) (f32.mul (f32.load (local.get $p1)) (local.get $xs))))
            (local.set $s2 (f32.add (local.get $s2) (f32.mul (f32.load (local.get $p2)) (local.get $xs))))
            (local.set $s3 (f32.add (local.get $s3) (f32.mul (f32.load (local.get $p3)) (local.get $xs))))
            (local.set $p0 (i32.add (local.get $p0) (i32.const 4)))
            (local.set $p1 (i32.add (local.get $p1) (i32.const 4)))
            (local.set $p2 (i32.add (local.get $p2) (i32.const 4)))
            (local.set $p3 (i32.add (local.get $p3) (i32.const 4)))
            (local.set $q (i32.add (local.get $q) (i32.const 4)))
            (br $eachFloat)))
        (f32.store offset=0 (local.get $out) (f32.add (call $sum (f32x4.add (local.get $a0) (local.get $b0))) (local.get $s0)))
        (f32.store offset=4 (local.get $out) (f32.add (call $sum (f32x4.add (local.get $a1) (local.get $b1))) (local.get $s1)))
        (f32.store offset=8 (local.get $out) (f32.add (call $sum (f32x4.add (local.get $a2) (local.get $b2))) (local.get $s2)))
        (f32.store offset=12 (local.get $out) (f32.add (call $sum (f32x4.add (local.get $a3) (local.get $b3))) (local.get $s3)))
        (local.set $rows (i32.add (local.get $rows) (i32.const 16)))
        (local.set $out (i32.add (local.get $out) (i32.const 16)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $eachFourRows))))
)
