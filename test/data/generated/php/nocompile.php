<?php

namespace Textkit\Tests;

use PHPUnit\Framework\TestCase;
use Textkit\Slugger;

final class SluggerTest extends TestCase
{
    public function testSlugify(): void
    {
        $slug = (new Slugger())->slugify('Hello World')
        $this->assertSame('hello-world', $slug);
    }
}
