<?php

declare(strict_types=1);

namespace Textkit\Tests;

use PHPUnit\Framework\TestCase;
use Textkit\Slugger;

final class SlugifyWeakTest extends TestCase
{
    public function testReturnsAString(): void
    {
        $slug = (new Slugger())->slugify('Hello World');
        $this->assertIsString($slug);
    }
}
