//! Lines fitted to LogGP quantities.
//!
//! Within one protocol range hoefler2007 Eq. (7) makes `G_all(s) = g + (s − 1)·G` a line
//! in the size; g and G are a gap and a gap per byte, so neither can be negative. The fit
//! is a weighted least-squares line constrained to g ≥ 0 and G ≥ 0: where the free fit
//! leaves that region, the optimum lies on its boundary (G = 0, or g = 0), and the better
//! of the two boundary fits is taken — exact for two parameters (a tiny NNLS).

/// A fitted line `y = intercept + slope · x`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    pub intercept: f64,
    pub slope: f64,
}

impl Line {
    pub fn at(&self, x: f64) -> f64 {
        self.intercept + self.slope * x
    }
}

/// Weighted least squares over (x, y, w). With one distinct x, a flat line.
pub fn weighted_line(pts: &[(f64, f64, f64)]) -> Option<Line> {
    let sw: f64 = pts.iter().map(|p| p.2).sum();
    if pts.is_empty() || sw <= 0.0 {
        return None;
    }
    let mx = pts.iter().map(|p| p.2 * p.0).sum::<f64>() / sw;
    let my = pts.iter().map(|p| p.2 * p.1).sum::<f64>() / sw;
    let sxx: f64 = pts.iter().map(|p| p.2 * (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| p.2 * (p.0 - mx) * (p.1 - my)).sum();
    if sxx <= 0.0 {
        return Some(Line {
            intercept: my,
            slope: 0.0,
        });
    }
    let slope = sxy / sxx;
    Some(Line {
        intercept: my - slope * mx,
        slope,
    })
}

/// Ordinary least squares.
pub fn least_squares(pts: &[(f64, f64)]) -> Option<Line> {
    let w: Vec<(f64, f64, f64)> = pts.iter().map(|&(x, y)| (x, y, 1.0)).collect();
    weighted_line(&w)
}

/// g and G of `y = g + (s − 1)·G` over (s, y, weight), constrained to g ≥ 0, G ≥ 0.
/// Returns (g, G), or None without points.
pub fn gap_line(pts: &[(f64, f64, f64)]) -> Option<(f64, f64)> {
    let shifted: Vec<(f64, f64, f64)> = pts.iter().map(|&(s, y, w)| (s - 1.0, y, w)).collect();
    let free = weighted_line(&shifted)?;
    if free.intercept >= 0.0 && free.slope >= 0.0 {
        return Some((free.intercept, free.slope));
    }
    let sse = |g: f64, gg: f64| -> f64 {
        shifted
            .iter()
            .map(|&(x, y, w)| w * (y - g - gg * x).powi(2))
            .sum()
    };
    // Boundary G = 0: the weighted mean, itself clamped at 0.
    let sw: f64 = shifted.iter().map(|p| p.2).sum();
    let mean = (shifted.iter().map(|p| p.2 * p.1).sum::<f64>() / sw).max(0.0);
    // Boundary g = 0: a line through the origin.
    let sxx: f64 = shifted.iter().map(|p| p.2 * p.0 * p.0).sum();
    let through = if sxx > 0.0 {
        (shifted.iter().map(|p| p.2 * p.0 * p.1).sum::<f64>() / sxx).max(0.0)
    } else {
        0.0
    };
    Some(if sse(mean, 0.0) <= sse(0.0, through) {
        (mean, 0.0)
    } else {
        (0.0, through)
    })
}

/// Least squares that ignores single outliers: fit, drop the points whose residual is
/// above 4 × the median absolute residual (and above 1 % of the value), fit again.
pub fn robust_line(pts: &[(f64, f64)]) -> Option<Line> {
    let first = least_squares(pts)?;
    if pts.len() < 5 {
        return Some(first);
    }
    let res = |&(x, y): &(f64, f64)| (y - first.at(x)).abs();
    let mut r: Vec<f64> = pts.iter().map(res).collect();
    r.sort_by(f64::total_cmp);
    let mad = r[r.len() / 2];
    let kept: Vec<(f64, f64)> = pts
        .iter()
        .copied()
        .filter(|p| res(p) <= 4.0 * mad || res(p) <= 0.01 * p.1.abs())
        .collect();
    if kept.len() >= 3 && kept.len() < pts.len() {
        least_squares(&kept)
    } else {
        Some(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gap_line_is_never_negative() {
        // A free fit would give a negative slope.
        let pts = [(1.0, 100.0, 1.0), (2.0, 90.0, 1.0), (3.0, 80.0, 1.0)];
        let (g, gg) = gap_line(&pts).unwrap();
        assert!(g >= 0.0 && gg >= 0.0);
        assert!((g - 90.0).abs() < 1e-9 && gg == 0.0);
        // A free fit would give a negative intercept.
        let pts = [
            (1000.0, 90.0, 1.0),
            (2000.0, 200.0, 1.0),
            (3000.0, 310.0, 1.0),
        ];
        let (g, gg) = gap_line(&pts).unwrap();
        assert!(g == 0.0 && gg > 0.1);
        // Inside the region the free fit stands.
        let pts = [(1.0, 10.0, 1.0), (11.0, 20.0, 1.0), (21.0, 30.0, 1.0)];
        let (g, gg) = gap_line(&pts).unwrap();
        assert!((g - 10.0).abs() < 1e-9 && (gg - 1.0).abs() < 1e-9);
    }
}
