#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_non_positive_and_non_finite_sides() {
        assert_eq!(classify_triangle(0.0, 1.0, 1.0), TriangleKind::Invalid);
        assert_eq!(classify_triangle(-1.0, 2.0, 2.0), TriangleKind::Invalid);
        assert_eq!(classify_triangle(f64::NAN, 1.0, 1.0), TriangleKind::Invalid);
        assert_eq!(classify_triangle(f64::INFINITY, 1.0, 1.0), TriangleKind::Invalid);
    }

    #[test]
    fn rejects_sides_breaking_the_triangle_inequality() {
        assert_eq!(classify_triangle(1.0, 2.0, 4.0), TriangleKind::Invalid);
        assert_eq!(classify_triangle(4.0, 1.0, 2.0), TriangleKind::Invalid);
    }

    #[test]
    fn flat_triangles_are_degenerate() {
        assert_eq!(classify_triangle(1.0, 2.0, 3.0), TriangleKind::Degenerate);
        assert_eq!(classify_triangle(3.0, 1.0, 2.0), TriangleKind::Degenerate);
        assert_eq!(classify_triangle(0.1, 0.2, 0.3), TriangleKind::Degenerate);
    }

    #[test]
    fn classifies_every_kind() {
        assert_eq!(classify_triangle(2.0, 2.0, 2.0), TriangleKind::Equilateral);
        assert_eq!(classify_triangle(1.0, 1.0, 2f64.sqrt()), TriangleKind::RightIsosceles);
        assert_eq!(classify_triangle(2.0, 2.0, 3.0), TriangleKind::Isosceles);
        assert_eq!(classify_triangle(3.0, 2.0, 2.0), TriangleKind::Isosceles);
        assert_eq!(classify_triangle(2.0, 3.0, 3.0), TriangleKind::Isosceles);
        assert_eq!(classify_triangle(3.0, 4.0, 5.0), TriangleKind::Right);
        assert_eq!(classify_triangle(5.0, 3.0, 4.0), TriangleKind::Right);
        assert_eq!(classify_triangle(4.0, 5.0, 6.0), TriangleKind::Scalene);
    }

    #[test]
    fn nearly_equal_sides_count_as_equal() {
        assert_eq!(classify_triangle(2.0, 2.0 + 1e-12, 2.0), TriangleKind::Equilateral);
        assert_eq!(classify_triangle(2.0, 2.0001, 2.0), TriangleKind::Isosceles);
    }
}
