#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_kind() {
        assert_eq!(classify_triangle(3.0, 4.0, 5.0), TriangleKind::Scalene);
    }
}
