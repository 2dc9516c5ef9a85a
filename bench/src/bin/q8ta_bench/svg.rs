//! The chart of a run (`--svg`): GB/s against the bytes moved, one panel
//! per layout pair.

use ncnn_glsl_q8ta::Layout;

use crate::record::Record;

/// GB/s against tensor size (MiB moved, log scale), one panel per layout
/// pair: the rewrite, the baseline, glslang's build and the copy ceiling, for
/// the passthrough variant (requantize dotted).
pub fn svg(records: &[Record], device: &str) -> String {
    let (pw, ph, m) = (300.0, 210.0, 46.0);
    let (w, h) = (3.0 * pw + 20.0, 3.0 * ph + 70.0);
    let ymax = records.iter().map(Record::gbps).fold(1.0, f64::max) * 1.1;
    let xs: Vec<f64> = records
        .iter()
        .map(|r| (r.bytes as f64 / 1048576.0).log2())
        .collect();
    let (xmin, xmax) = xs
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    let xspan = (xmax - xmin).max(1.0);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         font-family=\"sans-serif\" font-size=\"10\">\n<rect width=\"100%\" height=\"100%\" \
         fill=\"white\"/>\n<text x=\"10\" y=\"18\" font-size=\"13\">q8ta pixel shuffle, GB/s \
         against MiB moved (log2), {device}</text>\n"
    );
    let styles = [
        ("copy", "#888888", ""),
        ("copy (shader)", "#000000", "2 2"),
        ("rewrite", "#1f77b4", ""),
        ("rewrite (glslang)", "#2ca02c", "4 3"),
        ("baseline", "#ff7f0e", ""),
    ];
    for (i, (name, color, dash)) in styles.iter().enumerate() {
        let x = 380.0 + 110.0 * i as f64;
        s += &format!(
            "<line x1=\"{x}\" y1=\"14\" x2=\"{}\" y2=\"14\" stroke=\"{color}\" stroke-width=\"2\" \
             stroke-dasharray=\"{dash}\"/><text x=\"{}\" y=\"18\">{name}</text>\n",
            x + 20.0,
            x + 24.0
        );
    }
    for (pi, &il) in Layout::ALL.iter().enumerate() {
        for (pj, &ol) in Layout::ALL.iter().enumerate() {
            let (ox, oy) = (10.0 + pj as f64 * pw, 30.0 + pi as f64 * ph);
            let (x0, y0, x1, y1) = (ox + m, oy + 14.0, ox + pw - 10.0, oy + ph - 26.0);
            let px = |mib: f64| x0 + (mib - xmin) / xspan * (x1 - x0);
            let py = |g: f64| y1 - g / ymax * (y1 - y0);
            s += &format!(
                "<rect x=\"{x0}\" y=\"{y0}\" width=\"{}\" height=\"{}\" fill=\"none\" \
                 stroke=\"#ccc\"/>\n<text x=\"{}\" y=\"{}\">{il} -&gt; {ol}</text>\n",
                x1 - x0,
                y1 - y0,
                x0 + 4.0,
                y0 + 12.0
            );
            for t in 0..=4 {
                let g = ymax * t as f64 / 4.0;
                s += &format!(
                    "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{:.0}</text>\n",
                    x0 - 3.0,
                    py(g) + 3.0,
                    g
                );
            }
            for e in (xmin.ceil() as i32)..=(xmax.floor() as i32) {
                if e % 2 == 0 {
                    s += &format!(
                        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                        px(e as f64),
                        y1 + 12.0,
                        2f64.powi(e)
                    );
                }
            }
            for (name, color, dash) in styles {
                for pt in [true, false] {
                    let mut pts: Vec<(f64, f64)> = records
                        .iter()
                        .filter(|r| {
                            let axes = r.case.axes;
                            (axes.in_layout, axes.out_layout) == (il, ol)
                                && r.kernel == name
                                && axes.passthrough == pt
                        })
                        .map(|r| (px((r.bytes as f64 / 1048576.0).log2()), py(r.gbps())))
                        .collect();
                    if pts.is_empty() || (name.starts_with("copy") && !pt) {
                        continue;
                    }
                    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                    let line: Vec<String> =
                        pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
                    let dash = if pt { dash } else { "1 2" };
                    s += &format!(
                        "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\" \
                         stroke-dasharray=\"{dash}\" points=\"{}\"/>\n",
                        line.join(" ")
                    );
                }
            }
        }
    }
    s += &format!(
        "<text x=\"10\" y=\"{}\">solid: passthrough; dotted: requantize. y: GB/s (input + \
         output bytes / median GPU time); x: MiB moved.</text>\n</svg>\n",
        h - 10.0
    );
    s
}
