//! Native inference of the learned evaluation (`colorwars.zero.network`): the same network,
//! the same input features, the same numbers as its numpy reference (to float32 rounding),
//! each 3x3 convolution one matrix product of the board's nine shifted copies (im2col) by
//! `matrixmultiply`'s sgemm (it picks AVX2/FMA at run time where the CPU has them), or, for
//! 8, 16, 24 or 32 channels on a CPU with AVX2 and FMA, a direct convolution in registers
//! (`direct`).

use std::fmt;

/// Input planes per cell (`colorwars.zero.network.FEATURES`).
pub const FEATURES: usize = 10;

/// A network that does not fit its layout.
#[derive(Debug, Clone, PartialEq)]
pub struct NetError(pub String);

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid network: {}", self.0)
    }
}

impl std::error::Error for NetError {}

struct Conv {
    /// HWIO, as `(9 * inputs) x outputs` row-major.
    kernel: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
}

/// The network's weights.
pub struct Net {
    channels: usize,
    hidden: usize,
    /// The stem, then two per residual block.
    convs: Vec<Conv>,
    policy_kernel: Vec<f32>,
    policy_bias: f32,
    value1_kernel: Vec<f32>,
    value1_bias: Vec<f32>,
    value2_kernel: Vec<f32>,
    value2_bias: f32,
}

/// Reusable buffers of one evaluation (sized for the largest batch seen so far).
#[derive(Default)]
pub struct Scratch {
    x: Vec<f32>,
    y: Vec<f32>,
    z: Vec<f32>,
    cols: Vec<f32>,
}

fn take(
    params: &mut dyn FnMut(&str) -> Option<Vec<f32>>,
    name: &str,
    len: usize,
) -> Result<Vec<f32>, NetError> {
    let v = params(name).ok_or_else(|| NetError(format!("no parameter {name}")))?;
    if v.len() != len {
        return Err(NetError(format!(
            "parameter {name} has {} numbers, expected {len}",
            v.len()
        )));
    }
    if v.iter().any(|x| !x.is_finite()) {
        return Err(NetError(format!("parameter {name} holds NaN or infinity")));
    }
    Ok(v)
}

fn degree(h: usize, w: usize, r: usize, c: usize) -> u8 {
    4 - u8::from(r == 0) - u8::from(r + 1 == h) - u8::from(c == 0) - u8::from(c + 1 == w)
}

impl Net {
    /// A network of `channels`, `blocks` residual blocks and `hidden` value units, its
    /// parameters read by name (`stem.kernel`, `block0a.bias`, ..., as the numpy layout).
    pub fn new(
        channels: usize,
        blocks: usize,
        hidden: usize,
        params: &mut dyn FnMut(&str) -> Option<Vec<f32>>,
    ) -> Result<Net, NetError> {
        if !(1..=512).contains(&channels) || blocks > 64 || !(1..=4096).contains(&hidden) {
            return Err(NetError(format!(
                "{channels} channels, {blocks} blocks, {hidden} hidden units: expected 1 to \
                 512, 0 to 64 and 1 to 4096"
            )));
        }
        let mut convs = Vec::new();
        let mut names = vec!["stem".to_string()];
        for i in 0..blocks {
            names.push(format!("block{i}a"));
            names.push(format!("block{i}b"));
        }
        for (k, name) in names.iter().enumerate() {
            let inputs = if k == 0 { FEATURES } else { channels };
            convs.push(Conv {
                kernel: take(params, &format!("{name}.kernel"), 9 * inputs * channels)?,
                bias: take(params, &format!("{name}.bias"), channels)?,
                inputs,
            });
        }
        Ok(Net {
            channels,
            hidden,
            convs,
            policy_kernel: take(params, "policy.kernel", channels)?,
            policy_bias: take(params, "policy.bias", 1)?[0],
            value1_kernel: take(params, "value1.kernel", 2 * channels * hidden)?,
            value1_bias: take(params, "value1.bias", hidden)?,
            value2_kernel: take(params, "value2.kernel", hidden)?,
            value2_bias: take(params, "value2.bias", 1)?[0],
        })
    }

    /// The input features of `planes` (`b` positions of 2 x `h` x `w` orb counts, plane 0 the
    /// mover's) into `x`, channels last.
    fn features(planes: &[u8], b: usize, h: usize, w: usize, x: &mut [f32]) {
        let cells = h * w;
        for p in 0..b {
            let mover = &planes[p * 2 * cells..p * 2 * cells + cells];
            let other = &planes[p * 2 * cells + cells..(p + 1) * 2 * cells];
            let mover_none = f32::from(u8::from(mover.iter().all(|&v| v == 0)));
            let other_none = f32::from(u8::from(other.iter().all(|&v| v == 0)));
            for r in 0..h {
                for c in 0..w {
                    let i = r * w + c;
                    let d = degree(h, w, r, c);
                    let (m, o) = (mover[i], other[i]);
                    let f = &mut x[(p * cells + i) * FEATURES..(p * cells + i + 1) * FEATURES];
                    f[0] = f32::from(m) * 0.25;
                    f[1] = f32::from(o) * 0.25;
                    f[2] = f32::from(u8::from(m > 0 && m >= d - 1));
                    f[3] = f32::from(u8::from(o > 0 && o >= d - 1));
                    f[4] = f32::from(u8::from(m > 0));
                    f[5] = f32::from(u8::from(o > 0));
                    f[6] = f32::from(u8::from(d == 2));
                    f[7] = f32::from(u8::from(d == 3));
                    f[8] = mover_none;
                    f[9] = other_none;
                }
            }
        }
    }

    /// `out = conv(x) (+ residual), ReLU` for `b` boards of `h` x `w`.
    #[allow(clippy::too_many_arguments)]
    fn conv(
        &self,
        conv: &Conv,
        x: &[f32],
        cols: &mut [f32],
        out: &mut [f32],
        residual: Option<&[f32]>,
        b: usize,
        h: usize,
        w: usize,
    ) {
        #[cfg(target_arch = "x86_64")]
        if direct::conv(conv, x, cols, out, residual, b, h, w, self.channels) {
            return;
        }
        self.conv_sgemm(conv, x, cols, out, residual, b, h, w);
    }

    /// `conv` as one matrix product of the nine shifted copies (im2col) by the kernel.
    #[allow(clippy::too_many_arguments)]
    fn conv_sgemm(
        &self,
        conv: &Conv,
        x: &[f32],
        cols: &mut [f32],
        out: &mut [f32],
        residual: Option<&[f32]>,
        b: usize,
        h: usize,
        w: usize,
    ) {
        let ci = conv.inputs;
        let co = self.channels;
        let k = 9 * ci;
        let rows = b * h * w;
        // im2col: row (p, r, c) holds the nine neighbours' inputs (zero off the board).
        for p in 0..b {
            for r in 0..h {
                for c in 0..w {
                    let row = &mut cols[((p * h + r) * w + c) * k..((p * h + r) * w + c + 1) * k];
                    for dy in 0..3 {
                        for dx in 0..3 {
                            let dst = &mut row[(dy * 3 + dx) * ci..(dy * 3 + dx + 1) * ci];
                            let (rr, cc) = (r + dy, c + dx);
                            if rr == 0 || cc == 0 || rr > h || cc > w {
                                dst.fill(0.0);
                            } else {
                                let src = ((p * h + rr - 1) * w + cc - 1) * ci;
                                dst.copy_from_slice(&x[src..src + ci]);
                            }
                        }
                    }
                }
            }
        }
        for row in out[..rows * co].chunks_exact_mut(co) {
            row.copy_from_slice(&conv.bias);
        }
        // SAFETY: the slices hold rows x k, k x co and rows x co numbers, row-major, and
        // do not overlap (cols, kernel and out are distinct buffers).
        unsafe {
            matrixmultiply::sgemm(
                rows,
                k,
                co,
                1.0,
                cols.as_ptr(),
                k as isize,
                1,
                conv.kernel.as_ptr(),
                co as isize,
                1,
                1.0,
                out.as_mut_ptr(),
                co as isize,
                1,
            );
        }
        match residual {
            Some(res) => {
                for (o, r) in out[..rows * co].iter_mut().zip(res) {
                    *o = (*o + r).max(0.0);
                }
            }
            None => {
                for o in out[..rows * co].iter_mut() {
                    *o = o.max(0.0);
                }
            }
        }
    }

    /// The logits (`b * h * w`) and values (`b`) of `b` positions of two-player `planes`.
    #[allow(clippy::too_many_arguments)]
    pub fn forward(
        &self,
        planes: &[u8],
        b: usize,
        h: usize,
        w: usize,
        scratch: &mut Scratch,
        logits: &mut [f32],
        values: &mut [f32],
    ) {
        let cells = h * w;
        let c = self.channels;
        let widest = c.max(FEATURES);
        let need = b * cells * widest;
        for buf in [&mut scratch.x, &mut scratch.y, &mut scratch.z] {
            if buf.len() < need {
                buf.resize(need, 0.0);
            }
        }
        if scratch.cols.len() < b * cells * 9 * widest {
            scratch.cols.resize(b * cells * 9 * widest, 0.0);
        }
        let Scratch { x, y, z, cols } = scratch;
        Net::features(planes, b, h, w, x);
        self.conv(&self.convs[0], x, cols, y, None, b, h, w);
        std::mem::swap(x, y); // x: the stem's output
        for pair in self.convs[1..].chunks_exact(2) {
            // x + conv(relu(conv(x))), ReLU: y the inner output, z the block's.
            self.conv(&pair[0], x, cols, y, None, b, h, w);
            self.conv(&pair[1], y, cols, z, Some(x), b, h, w);
            std::mem::swap(x, z);
        }
        let mut pooled = vec![0.0f32; 2 * c];
        let mut hid = vec![0.0f32; self.hidden];
        for p in 0..b {
            let board = &x[p * cells * c..(p + 1) * cells * c];
            for (i, cell) in board.chunks_exact(c).enumerate() {
                let dot: f32 = cell
                    .iter()
                    .zip(&self.policy_kernel)
                    .map(|(a, k)| a * k)
                    .sum();
                logits[p * cells + i] = dot + self.policy_bias;
            }
            pooled[..c].fill(0.0);
            pooled[c..].fill(f32::NEG_INFINITY);
            for cell in board.chunks_exact(c) {
                for j in 0..c {
                    pooled[j] += cell[j];
                    pooled[c + j] = pooled[c + j].max(cell[j]);
                }
            }
            for v in &mut pooled[..c] {
                *v /= cells as f32;
            }
            hid.copy_from_slice(&self.value1_bias);
            for (i, &v) in pooled.iter().enumerate() {
                let row = &self.value1_kernel[i * self.hidden..(i + 1) * self.hidden];
                for (hj, k) in hid.iter_mut().zip(row) {
                    *hj += v * k;
                }
            }
            let out: f32 = hid
                .iter()
                .zip(&self.value2_kernel)
                .map(|(a, k)| a.max(0.0) * k)
                .sum();
            values[p] = (out + self.value2_bias).tanh();
        }
    }
}

/// The convolutions without im2col or packing, for 8, 16, 24 or 32 output channels on a CPU
/// with AVX2 and FMA (nearly every x86-64 since 2013): the input copied once into a board
/// with a border of zeros, then each output cell's channels summed in registers over its nine
/// neighbours, a few cells at a time so that each kernel row loaded serves all of them. For
/// the small networks that search fastest the matrix product's packing and the nine shifted
/// copies took over half the time (by `perf`). Other layouts and CPUs take the sgemm.
#[cfg(target_arch = "x86_64")]
mod direct {
    use super::Conv;
    use std::arch::x86_64::*;

    /// Whether `co` output channels take this path on this CPU.
    pub(super) fn fits(co: usize) -> bool {
        matches!(co, 8 | 16 | 24 | 32)
            && std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("fma")
    }

    /// `out = conv(x) (+ residual), ReLU` for `b` boards of `h` x `w` (channels last), with
    /// `pad` as scratch for the bordered input; false (and nothing done) where this path does
    /// not apply: channels it does not take (`fits`), or buffers shorter than the boards.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn conv(
        conv: &Conv,
        x: &[f32],
        pad: &mut [f32],
        out: &mut [f32],
        residual: Option<&[f32]>,
        b: usize,
        h: usize,
        w: usize,
        co: usize,
    ) -> bool {
        let ci = conv.inputs;
        let (ph, pw) = (h + 2, w + 2);
        let whole = b * h * w;
        if !fits(co)
            || conv.kernel.len() != 9 * ci * co
            || conv.bias.len() != co
            || pad.len() < b * ph * pw * ci
            || x.len() < whole * ci
            || out.len() < whole * co
            || residual.is_some_and(|r| r.len() < whole * co)
        {
            return false;
        }
        let pad = &mut pad[..b * ph * pw * ci];
        pad.fill(0.0);
        for p in 0..b {
            for r in 0..h {
                let src = &x[(p * h + r) * w * ci..(p * h + r + 1) * w * ci];
                let at = ((p * ph + r + 1) * pw + 1) * ci;
                pad[at..at + w * ci].copy_from_slice(src);
            }
        }
        let pad = &*pad;
        // SAFETY: `fits` checked that the CPU has AVX2 and FMA, and that `co` is one of the
        // four below (each `run` writes `NV * 8 = co` channels); the slices' lengths were
        // checked above, and every index below stays inside them (the cells of the `b`
        // boards, their windows inside the bordered copy, the kernel's `9 * ci` rows).
        unsafe {
            match co {
                8 => run::<1, 8>(conv, pad, out, residual, b, h, w),
                16 => run::<2, 4>(conv, pad, out, residual, b, h, w),
                24 => run::<3, 4>(conv, pad, out, residual, b, h, w),
                32 => run::<4, 2>(conv, pad, out, residual, b, h, w),
                _ => return false,
            }
        }
        true
    }

    /// Every cell, `R` at a time along each row (then one at a time to the row's end);
    /// `NV` vectors of eight channels.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn run<const NV: usize, const R: usize>(
        conv: &Conv,
        pad: &[f32],
        out: &mut [f32],
        residual: Option<&[f32]>,
        b: usize,
        h: usize,
        w: usize,
    ) {
        for p in 0..b {
            for r in 0..h {
                let mut c = 0;
                while c + R <= w {
                    cells::<NV, R>(conv, pad, out, residual, h, w, p, r, c);
                    c += R;
                }
                while c < w {
                    cells::<NV, 1>(conv, pad, out, residual, h, w, p, r, c);
                    c += 1;
                }
            }
        }
    }

    /// The `R` cells from (`r`, `c`) of board `p`.
    #[target_feature(enable = "avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    #[inline]
    unsafe fn cells<const NV: usize, const R: usize>(
        conv: &Conv,
        pad: &[f32],
        out: &mut [f32],
        residual: Option<&[f32]>,
        h: usize,
        w: usize,
        p: usize,
        r: usize,
        c: usize,
    ) {
        let ci = conv.inputs;
        let co = NV * 8;
        let (kernel, bias) = (conv.kernel.as_ptr(), conv.bias.as_ptr());
        let mut acc = [[_mm256_setzero_ps(); NV]; R];
        for row in acc.iter_mut() {
            for (v, a) in row.iter_mut().enumerate() {
                *a = _mm256_loadu_ps(bias.add(v * 8));
            }
        }
        let pw = w + 2;
        for dy in 0..3 {
            for dx in 0..3 {
                let taps = kernel.add((dy * 3 + dx) * ci * co);
                let base = pad
                    .as_ptr()
                    .add(((p * (h + 2) + r + dy) * pw + c + dx) * ci);
                for i in 0..ci {
                    let mut k = [_mm256_setzero_ps(); NV];
                    for (v, kv) in k.iter_mut().enumerate() {
                        *kv = _mm256_loadu_ps(taps.add(i * co + v * 8));
                    }
                    for (j, row) in acc.iter_mut().enumerate() {
                        let xv = _mm256_broadcast_ss(&*base.add(j * ci + i));
                        for (a, kv) in row.iter_mut().zip(&k) {
                            *a = _mm256_fmadd_ps(xv, *kv, *a);
                        }
                    }
                }
            }
        }
        let zero = _mm256_setzero_ps();
        for (j, row) in acc.iter().enumerate() {
            let at = ((p * h + r) * w + c + j) * co;
            for (v, a) in row.iter().enumerate() {
                let mut y = *a;
                if let Some(res) = residual {
                    y = _mm256_add_ps(y, _mm256_loadu_ps(res.as_ptr().add(at + v * 8)));
                }
                _mm256_storeu_ps(out.as_mut_ptr().add(at + v * 8), _mm256_max_ps(y, zero));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many numbers the parameter `name` holds in a network of this layout.
    fn param_len(name: &str, channels: usize, hidden: usize) -> usize {
        if name == "stem.kernel" {
            9 * FEATURES * channels
        } else if name.ends_with("a.kernel") || name.ends_with("b.kernel") {
            9 * channels * channels
        } else if name == "policy.kernel" {
            channels
        } else if name == "value1.kernel" {
            2 * channels * hidden
        } else if name == "value2.kernel" || name == "value1.bias" {
            hidden
        } else if name == "policy.bias" || name == "value2.bias" {
            1
        } else {
            channels
        }
    }

    fn constant_net(channels: usize, blocks: usize, hidden: usize, v: f32) -> Net {
        Net::new(channels, blocks, hidden, &mut |name: &str| {
            Some(vec![v; param_len(name, channels, hidden)])
        })
        .unwrap()
    }

    /// A network of small pseudo-random weights (a fixed sequence: the same every run).
    fn varied_net(channels: usize, blocks: usize) -> Net {
        let mut state = 0x9e37_79b9_u32.wrapping_mul(channels as u32 + 7);
        Net::new(channels, blocks, 8, &mut |name: &str| {
            Some(
                (0..param_len(name, channels, 8))
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 17;
                        state ^= state << 5;
                        (state % 2001) as f32 / 1000.0 - 1.0
                    })
                    .collect(),
            )
        })
        .unwrap()
    }

    #[test]
    fn every_convolution_path_computes_the_same_numbers() {
        // Output channels the direct path takes (8 to 32) and one it leaves to the sgemm
        // (12); boards whose rows are not a multiple of the cells done at once; the stem (10
        // inputs) and a block with its residual.
        for channels in [8, 12, 16, 24, 32] {
            let net = varied_net(channels, 1);
            for (b, h, w) in [
                (3, 8, 8),
                (2, 6, 9),
                (1, 3, 3),
                (2, 1, 7),
                (1, 10, 10),
                (1, 5, 2),
            ] {
                let mut x = vec![0.0f32; b * h * w * channels.max(FEATURES)];
                for (i, v) in x.iter_mut().enumerate() {
                    *v = ((i * 7919) % 23) as f32 / 11.0 - 1.0;
                }
                let res: Vec<f32> = x.iter().map(|v| v * 0.5 - 0.1).collect();
                for (conv, residual) in [(&net.convs[0], None), (&net.convs[2], Some(&res[..]))] {
                    let rows = b * h * w;
                    let mut cols = vec![0.0f32; rows * 9 * channels.max(FEATURES)];
                    let (mut a, mut want) =
                        (vec![0.0f32; rows * channels], vec![0.0; rows * channels]);
                    #[cfg(target_arch = "x86_64")]
                    {
                        let direct = super::direct::conv(
                            conv, &x, &mut cols, &mut a, residual, b, h, w, channels,
                        );
                        // The direct path takes what `fits` says it takes (this test then
                        // compares it with the sgemm; otherwise it says so).
                        if !direct {
                            assert!(!super::direct::fits(channels));
                            eprintln!("{channels} channels: not the direct path's, on this CPU");
                            net.conv(conv, &x, &mut cols, &mut a, residual, b, h, w);
                        }
                    }
                    #[cfg(not(target_arch = "x86_64"))]
                    net.conv(conv, &x, &mut cols, &mut a, residual, b, h, w);
                    net.conv_sgemm(conv, &x, &mut cols, &mut want, residual, b, h, w);
                    for (i, (p, q)) in a.iter().zip(&want).enumerate() {
                        assert!(
                            (p - q).abs() <= 1e-4 * (1.0 + q.abs()),
                            "{channels} channels, {b}x{h}x{w}, number {i}: {p} and {q}"
                        );
                    }
                    assert!(want.iter().any(|&v| v > 0.0), "a test that can fail");
                }
            }
        }
    }

    #[test]
    fn a_wrong_parameter_is_an_error() {
        let err = Net::new(4, 1, 8, &mut |_| Some(vec![0.0; 3]))
            .err()
            .unwrap();
        assert!(err.0.contains("stem.kernel"), "{err}");
        let err = Net::new(4, 1, 8, &mut |_| None).err().unwrap();
        assert!(err.0.contains("no parameter"), "{err}");
    }

    #[test]
    fn zero_weights_give_zero_logits_and_values() {
        let net = constant_net(4, 2, 8, 0.0);
        let planes = vec![1u8; 2 * 2 * 3 * 4];
        let (mut logits, mut values) = (vec![9.0; 2 * 12], vec![9.0; 2]);
        net.forward(
            &planes,
            2,
            3,
            4,
            &mut Scratch::default(),
            &mut logits,
            &mut values,
        );
        assert!(logits.iter().all(|&x| x == 0.0));
        assert!(values.iter().all(|&x| x == 0.0));
    }

    #[test]
    fn values_stay_within_one_and_corners_see_fewer_neighbours() {
        let net = constant_net(3, 1, 4, 0.01);
        let planes = vec![2u8; 2 * 5 * 5];
        let (mut logits, mut values) = (vec![0.0; 25], vec![0.0; 1]);
        net.forward(
            &planes,
            1,
            5,
            5,
            &mut Scratch::default(),
            &mut logits,
            &mut values,
        );
        assert!(values[0].abs() <= 1.0);
        // Zero padding: a corner's 3x3 window holds fewer cells than the centre's.
        assert!(logits[0] < logits[12], "{logits:?}");
    }
}
