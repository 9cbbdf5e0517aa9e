#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_right_and_invalid() {
        assert_eq!(classify_triangle(3.0, 4.0, 5.0), TriangleKind::Right);
        assert_eq!(classify_triangle(1.0, 1.0, 5.0), TriangleKind::Invalid);
    }

    #[test]
    fn classifies_equilateral() {
        assert_eq!(classify_triangle(2.0, 2.0, 2.0), TriangleKind::Equilateral);
    }
}
