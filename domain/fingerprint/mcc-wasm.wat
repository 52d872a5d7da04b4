;; MCC local similarities of every matchable pair of cylinders of two templates (the bit version of
;; Cappelli, Ferrara, Maltoni, IEEE TPAMI 32(12) 2010, eq. 20), in WebAssembly: popcounts of 64-bit
;; words (i64.popcnt; measured faster here than 128-bit i8x16.popcnt, which V8 emulates with byte
;; shuffles), square roots from a table. The same arithmetic, in the same order, as `jsSimilarities` and
;; `localSimilarity` in mcc.ts, so the similarities are identical; mcc-wasm.ts lays the cylinders out and
;; reads the results. Compiled by wabt's wat2wasm into mcc-wasm-binary.ts (npm run build:mcc-wasm).
;;
;; Memory (bytes; the caller writes everything but the output):
;;   0-31    CIRCLE: the cells inside the cylinder's radius, one layer (256 bits).
;;   4096    √k for k = 0..3072 (f64; written by the caller with Math.sqrt, which the JavaScript path
;;           uses): ‖a‖, ‖b‖ ≤ 6 × 256 and ‖a⊕b‖ ≤ ‖a‖ + ‖b‖.
;;   a, b    a template block of n cylinders: bits (n × 192: 6 layers × 256 bits), mask (n × 32: valid
;;           cells of one layer), angle (n × f32, radians), cells (n × u16: popcount of mask), pop
;;           (n × u16: popcount of bits), part (n × u8: non-zero when the mask leaves out some of the
;;           circle), flip (n × u8: 1 when the direction is reversible); offsets 0, 192n, 224n, 228n,
;;           230n, 232n, 233n from the block's start (16-byte aligned, after the table: 28736 or more).
;;   f       A's turned cylinders (mcc.ts `flipped`; 0 when turned cylinders are not used): bits
;;           (nA × 192), mask (nA × 32), part (nA × u8), at offsets 0, 192nA, 224nA.
;;   out     results: value (f32, nA·nB), then index i·nB + j (i32, nA·nB), then turned (u8, nA·nB).
(module
  (memory (export "memory") 1)

  ;; Σ over the 16 byte lanes of v (lanes ≤ 255; here ≤ 16, two byte popcounts).
  (func $hsum (param $v v128) (result i32)
    (local $w v128)
    (local.set $w (i32x4.extadd_pairwise_i16x8_u (i16x8.extadd_pairwise_i8x16_u (local.get $v))))
    (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $w)) (i32x4.extract_lane 1 (local.get $w)))
      (i32.add (i32x4.extract_lane 2 (local.get $w)) (i32x4.extract_lane 3 (local.get $w)))))

  ;; Σ over the 6 layers of popcount(bits ∧ m), m one layer (m0 the first 128 cells, m1 the others),
  ;; by 64-bit words.
  (func $popMasked (param $p i32) (param $m0 v128) (param $m1 v128) (result i32)
    (local $acc i64) (local $w0 i64) (local $w1 i64) (local $w2 i64) (local $w3 i64)
    (local.set $w0 (i64x2.extract_lane 0 (local.get $m0))) (local.set $w1 (i64x2.extract_lane 1 (local.get $m0)))
    (local.set $w2 (i64x2.extract_lane 0 (local.get $m1))) (local.set $w3 (i64x2.extract_lane 1 (local.get $m1)))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=0 (local.get $p)) (local.get $w0)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=8 (local.get $p)) (local.get $w1)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=16 (local.get $p)) (local.get $w2)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=24 (local.get $p)) (local.get $w3)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=32 (local.get $p)) (local.get $w0)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=40 (local.get $p)) (local.get $w1)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=48 (local.get $p)) (local.get $w2)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=56 (local.get $p)) (local.get $w3)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=64 (local.get $p)) (local.get $w0)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=72 (local.get $p)) (local.get $w1)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=80 (local.get $p)) (local.get $w2)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=88 (local.get $p)) (local.get $w3)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=96 (local.get $p)) (local.get $w0)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=104 (local.get $p)) (local.get $w1)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=112 (local.get $p)) (local.get $w2)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=120 (local.get $p)) (local.get $w3)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=128 (local.get $p)) (local.get $w0)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=136 (local.get $p)) (local.get $w1)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=144 (local.get $p)) (local.get $w2)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=152 (local.get $p)) (local.get $w3)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=160 (local.get $p)) (local.get $w0)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=168 (local.get $p)) (local.get $w1)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=176 (local.get $p)) (local.get $w2)))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=184 (local.get $p)) (local.get $w3)))))
    (i32.wrap_i64 (local.get $acc)))

  ;; Σ over the 24 words of 64 bits of popcount(p ∧ q): ‖a ∧ b‖ of two cylinders.
  (func $popAnd (param $p i32) (param $q i32) (result i32)
    (local $acc i64)
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=0 (local.get $p)) (i64.load offset=0 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=8 (local.get $p)) (i64.load offset=8 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=16 (local.get $p)) (i64.load offset=16 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=24 (local.get $p)) (i64.load offset=24 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=32 (local.get $p)) (i64.load offset=32 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=40 (local.get $p)) (i64.load offset=40 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=48 (local.get $p)) (i64.load offset=48 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=56 (local.get $p)) (i64.load offset=56 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=64 (local.get $p)) (i64.load offset=64 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=72 (local.get $p)) (i64.load offset=72 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=80 (local.get $p)) (i64.load offset=80 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=88 (local.get $p)) (i64.load offset=88 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=96 (local.get $p)) (i64.load offset=96 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=104 (local.get $p)) (i64.load offset=104 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=112 (local.get $p)) (i64.load offset=112 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=120 (local.get $p)) (i64.load offset=120 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=128 (local.get $p)) (i64.load offset=128 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=136 (local.get $p)) (i64.load offset=136 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=144 (local.get $p)) (i64.load offset=144 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=152 (local.get $p)) (i64.load offset=152 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=160 (local.get $p)) (i64.load offset=160 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=168 (local.get $p)) (i64.load offset=168 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=176 (local.get $p)) (i64.load offset=176 (local.get $q))))))
    (local.set $acc (i64.add (local.get $acc) (i64.popcnt (i64.and (i64.load offset=184 (local.get $p)) (i64.load offset=184 (local.get $q))))))
    (i32.wrap_i64 (local.get $acc)))

  ;; Writes the local similarity (> 0 only) of every pair (i, j) of A's and B's cylinders that
  ;; `matchCylinders` compares, in the order i then j, to `out`; returns how many. dTheta: δθ (radians);
  ;; f: A's turned cylinders, 0 when not used (mcc.ts MatchOptions.reversible).
  (func (export "similarities") (param $nA i32) (param $a i32) (param $nB i32) (param $b i32) (param $f i32)
    (param $dTheta f64) (param $out i32) (result i32)
    (local $i i32) (local $j i32) (local $cnt i32) (local $cap i32)
    (local $ta f64) (local $d f64) (local $fa i32) (local $turned i32)
    (local $tBits i32) (local $tMask i32) (local $tPart i32)
    (local $aAng i32) (local $aCells i32) (local $aPop i32) (local $aFlip i32)
    (local $bMask i32) (local $bAng i32) (local $bCells i32) (local $bPop i32) (local $bPart i32) (local $bFlip i32)
    (local $common i32) (local $pa i32) (local $pb i32) (local $pab i32) (local $s f64)
    (local $ci0 v128) (local $ci1 v128) (local $o0 v128) (local $o1 v128)
    (local.set $cap (i32.mul (local.get $nA) (local.get $nB)))
    (local.set $ci0 (v128.load offset=0 (i32.const 0)))
    (local.set $ci1 (v128.load offset=16 (i32.const 0)))
    (local.set $aAng (i32.add (local.get $a) (i32.mul (local.get $nA) (i32.const 224))))
    (local.set $aCells (i32.add (local.get $a) (i32.mul (local.get $nA) (i32.const 228))))
    (local.set $aPop (i32.add (local.get $a) (i32.mul (local.get $nA) (i32.const 230))))
    (local.set $aFlip (i32.add (local.get $a) (i32.mul (local.get $nA) (i32.const 233))))
    (local.set $bMask (i32.add (local.get $b) (i32.mul (local.get $nB) (i32.const 192))))
    (local.set $bAng (i32.add (local.get $b) (i32.mul (local.get $nB) (i32.const 224))))
    (local.set $bCells (i32.add (local.get $b) (i32.mul (local.get $nB) (i32.const 228))))
    (local.set $bPop (i32.add (local.get $b) (i32.mul (local.get $nB) (i32.const 230))))
    (local.set $bPart (i32.add (local.get $b) (i32.mul (local.get $nB) (i32.const 232))))
    (local.set $bFlip (i32.add (local.get $b) (i32.mul (local.get $nB) (i32.const 233))))
    (block $doneI (loop $rows
      (br_if $doneI (i32.ge_u (local.get $i) (local.get $nA)))
      ;; MIN_COMMON = ⌈minME × NS²⌉ = 154 valid cells.
      (if (i32.ge_u (i32.load16_u (i32.add (local.get $aCells) (i32.shl (local.get $i) (i32.const 1)))) (i32.const 154))
        (then
          (local.set $ta (f64.promote_f32 (f32.load (i32.add (local.get $aAng) (i32.shl (local.get $i) (i32.const 2))))))
          (local.set $fa (i32.and (i32.ne (local.get $f) (i32.const 0))
            (i32.eq (i32.load8_u (i32.add (local.get $aFlip) (local.get $i))) (i32.const 1))))
          (local.set $j (i32.const 0))
          (block $doneJ (loop $cols
            (br_if $doneJ (i32.ge_u (local.get $j) (local.get $nB)))
            (block $next
              (br_if $next (i32.lt_u (i32.load16_u (i32.add (local.get $bCells) (i32.shl (local.get $j) (i32.const 1)))) (i32.const 154)))
              ;; d = angleDiff(ta, tb) without a remainder (mcc.ts adiff).
              (local.set $d (f64.sub (local.get $ta) (f64.promote_f32 (f32.load (i32.add (local.get $bAng) (i32.shl (local.get $j) (i32.const 2)))))))
              (if (f64.gt (local.get $d) (f64.const 3.141592653589793))
                (then
                  (local.set $d (f64.sub (local.get $d) (f64.const 6.283185307179586)))
                  (if (f64.gt (local.get $d) (f64.const 3.141592653589793))
                    (then (local.set $d (f64.sub (local.get $d) (f64.const 6.283185307179586))))))
                (else
                  (if (f64.le (local.get $d) (f64.const -3.141592653589793))
                    (then
                      (local.set $d (f64.add (local.get $d) (f64.const 6.283185307179586)))
                      (if (f64.le (local.get $d) (f64.const -3.141592653589793))
                        (then (local.set $d (f64.add (local.get $d) (f64.const 6.283185307179586)))))))))
              (local.set $turned (i32.const 0))
              (if (i32.or (f64.gt (local.get $d) (local.get $dTheta)) (f64.lt (local.get $d) (f64.neg (local.get $dTheta))))
                (then
                  (br_if $next (i32.eqz (local.get $f)))
                  (br_if $next (i32.eqz (i32.or (local.get $fa)
                    (i32.eq (i32.load8_u (i32.add (local.get $bFlip) (local.get $j))) (i32.const 1)))))
                  (br_if $next (f64.gt (f64.sub (f64.const 3.141592653589793) (f64.abs (local.get $d))) (local.get $dTheta)))
                  (local.set $turned (i32.const 1))))
              (if (local.get $turned)
                (then
                  (local.set $tBits (i32.add (local.get $f) (i32.mul (local.get $i) (i32.const 192))))
                  (local.set $tMask (i32.add (local.get $f) (i32.add (i32.mul (local.get $nA) (i32.const 192)) (i32.shl (local.get $i) (i32.const 5)))))
                  (local.set $tPart (i32.load8_u (i32.add (local.get $f) (i32.add (i32.mul (local.get $nA) (i32.const 224)) (local.get $i))))))
                (else
                  (local.set $tBits (i32.add (local.get $a) (i32.mul (local.get $i) (i32.const 192))))
                  (local.set $tMask (i32.add (local.get $a) (i32.add (i32.mul (local.get $nA) (i32.const 192)) (i32.shl (local.get $i) (i32.const 5)))))
                  (local.set $tPart (i32.load8_u (i32.add (local.get $a) (i32.add (i32.mul (local.get $nA) (i32.const 232)) (local.get $i)))))))
              (local.set $common (i32.load16_u (i32.add (local.get $aCells) (i32.shl (local.get $i) (i32.const 1)))))
              (local.set $pa (i32.load16_u (i32.add (local.get $aPop) (i32.shl (local.get $i) (i32.const 1)))))
              (local.set $pb (i32.load16_u (i32.add (local.get $bPop) (i32.shl (local.get $j) (i32.const 1)))))
              ;; B's mask leaves out some of the circle: common cells and A's bits there.
              (if (i32.load8_u (i32.add (local.get $bPart) (local.get $j)))
                (then
                  (local.set $o0 (v128.andnot (local.get $ci0) (v128.load offset=0 (i32.add (local.get $bMask) (i32.shl (local.get $j) (i32.const 5))))))
                  (local.set $o1 (v128.andnot (local.get $ci1) (v128.load offset=16 (i32.add (local.get $bMask) (i32.shl (local.get $j) (i32.const 5))))))
                  (local.set $common (i32.sub (local.get $common) (call $hsum (i8x16.add
                    (i8x16.popcnt (v128.and (v128.load offset=0 (local.get $tMask)) (local.get $o0)))
                    (i8x16.popcnt (v128.and (v128.load offset=16 (local.get $tMask)) (local.get $o1)))))))
                  (br_if $next (i32.lt_s (local.get $common) (i32.const 154)))
                  (local.set $pa (i32.sub (local.get $pa) (call $popMasked (local.get $tBits) (local.get $o0) (local.get $o1))))))
              ;; A's mask leaves out some of the circle: B's bits there.
              (if (local.get $tPart)
                (then
                  (local.set $o0 (v128.andnot (local.get $ci0) (v128.load offset=0 (local.get $tMask))))
                  (local.set $o1 (v128.andnot (local.get $ci1) (v128.load offset=16 (local.get $tMask))))
                  (local.set $pb (i32.sub (local.get $pb)
                    (call $popMasked (i32.add (local.get $b) (i32.mul (local.get $j) (i32.const 192))) (local.get $o0) (local.get $o1))))))
              (br_if $next (i32.eqz (i32.add (local.get $pa) (local.get $pb))))
              (local.set $pab (call $popAnd (local.get $tBits) (i32.add (local.get $b) (i32.mul (local.get $j) (i32.const 192)))))
              ;; 1 − √‖a⊕b‖ / (√‖a‖ + √‖b‖), ‖a⊕b‖ = ‖a‖ + ‖b‖ − 2‖a∧b‖.
              (local.set $s (f64.sub (f64.const 1)
                (f64.div
                  (f64.load offset=4096 (i32.shl (i32.sub (i32.add (local.get $pa) (local.get $pb)) (i32.shl (local.get $pab) (i32.const 1))) (i32.const 3)))
                  (f64.add (f64.load offset=4096 (i32.shl (local.get $pa) (i32.const 3))) (f64.load offset=4096 (i32.shl (local.get $pb) (i32.const 3)))))))
              (br_if $next (f64.le (local.get $s) (f64.const 0)))
              (f32.store (i32.add (local.get $out) (i32.shl (local.get $cnt) (i32.const 2))) (f32.demote_f64 (local.get $s)))
              (i32.store (i32.add (local.get $out) (i32.shl (i32.add (local.get $cap) (local.get $cnt)) (i32.const 2)))
                (i32.add (i32.mul (local.get $i) (local.get $nB)) (local.get $j)))
              (i32.store8 (i32.add (local.get $out) (i32.add (i32.shl (local.get $cap) (i32.const 3)) (local.get $cnt))) (local.get $turned))
              (local.set $cnt (i32.add (local.get $cnt) (i32.const 1))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $cols)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $rows)))
    (local.get $cnt)))
